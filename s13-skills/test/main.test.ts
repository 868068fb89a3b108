/**
 * s13 through the real CLI. One acceptance run of the offline demo; every other run talks to a
 * scripted model served on 127.0.0.1 whose replies call the skill tool as each test shows. What
 * each request carried is read off the model: what was offered, what was loaded, and when.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { MessageCreateParams } from "@anthropic-ai/sdk/resources/messages";
import { trustProject } from "@harness/s05-permissions";
import { SUMMARY_SYSTEM } from "@harness/s08-compaction";
import { reply, type ScriptStep, textReply, toolUse } from "@harness/scripted-model";
import { historyProblems } from "@harness/shared";
import { describe, expect, it } from "vitest";
import { discoverSkills } from "../src/discover-skills.ts";
import { shippedSkills } from "../src/flags.ts";
import { restateSkills, skillRestatement } from "../src/restate-skills.ts";
import {
  copyExampleSkills,
  EXAMPLE_SKILLS,
  lastResults,
  s13Runner,
  sent,
  skillFile,
  systemText,
  toolNames,
  toolResultText,
  writeSkills,
} from "./run-cli.ts";

const { serve, runHere, runAtTerminal, project, cleanEnv } = s13Runner();

const BODY = "Check each changed line against the checklist. BODY-MARKER-7";
const REVIEW = skillFile(
  "review-checklist",
  "Reviews a change with the team's checklist; use it when asked for a review.",
  BODY,
);
const LOG = "git log --oneline --no-decorate -n 20";
const skillCall = (skill: string, args?: string) => reply([toolUse("skill", { skill, ...(args ? { args } : {}) })]);
const bash = (command: string) => reply([toolUse("bash", { command })]);
const skillDescription = (body: MessageCreateParams) =>
  (body.tools ?? []).flatMap((tool) => ("name" in tool && tool.name === "skill" ? [tool.description ?? ""] : []))[0];
const isSummary = (body: MessageCreateParams) => JSON.stringify(body.system).includes(SUMMARY_SYSTEM);

/** A git project with one commit, and `files`. */
function gitProject(files: Record<string, string> = {}): string {
  const cwd = project({ "cart.ts": "export const cart = [];\n", ...files }, { git: true });
  const git = (...args: string[]) => execFileSync("git", ["-C", cwd, ...args], { stdio: "ignore" });
  git("add", "-A");
  git("-c", "user.name=A", "-c", "user.email=a@example.com", "commit", "-qm", "Add the cart");
  return cwd;
}

/** The home of `env`, with these skills in its skills folder. */
function userSkills(env: NodeJS.ProcessEnv, skills: Record<string, string>): string {
  const home = env.HARNESS_HOME as string;
  writeSkills(join(home, "skills"), skills);
  return home;
}

describe("pnpm s13", () => {
  it("runs the offline demo: the model loads the skill the list offers, reads its folder's file, ranks by it", async () => {
    const cwd = project({
      "src/cart.ts": "export const price = 10; // TODO: read it from the config\n",
      "src/total.ts": "// FIXME: crashes on an empty cart\nexport const total = 0; // TODO: round to cents\n",
    });
    copyExampleSkills(cwd);
    const { code, stdout, stderr } = await runHere(
      ["--cwd", cwd, "Triage the TODO comments in this project"],
      cleanEnv(),
    );
    expect(stderr).toMatch(/offline scripted model/);
    expect(code).toBe(0);
    expect(stdout).toContain('  skill: {"skill":"todo-triage"}');
    expect(stdout).toContain(
      "By todo-triage's priorities.md, 3 comments:\nhigh:\n- src/total.ts:1: // FIXME: crashes on an empty cart\n" +
        "medium:\n- src/cart.ts:1: export const price = 10; // TODO: read it from the config\n" +
        "low:\n- src/total.ts:2: export const total = 0; // TODO: round to cents\n",
    );
  }, 60_000);

  it("offers the description in the first request, in the skill tool's description only, and never the body", async () => {
    const { model, env } = await serve([textReply("Nothing to do.")]);
    const cwd = project();
    writeSkills(join(cwd, ".harness", "skills"), { "review-checklist": REVIEW });
    expect((await runHere(["--cwd", cwd, "Hello"], env)).code).toBe(0);
    const [first] = sent(model);
    expect(skillDescription(first)).toContain(
      "- review-checklist: Reviews a change with the team's checklist; use it when asked for a review.",
    );
    expect(systemText(first)).not.toContain("review-checklist");
    expect(JSON.stringify(first)).not.toContain("BODY-MARKER-7");
  });

  it("puts the body, with the skill's folder, in the request after the skill call", async () => {
    const { model, env } = await serve([skillCall("review-checklist"), textReply("Reviewed.")]);
    const cwd = project();
    writeSkills(join(cwd, ".harness", "skills"), { "review-checklist": REVIEW });
    expect((await runHere(["--cwd", cwd, "Review my change"], env)).code).toBe(0);
    const [, second] = sent(model);
    const [result] = lastResults(second);
    expect(result.is_error).toBeFalsy();
    expect(toolResultText(result)).toBe(
      `Skill "review-checklist". Base directory for this skill: ${join(cwd, ".harness", "skills", "review-checklist")}\n\n${BODY}`,
    );
    expect(historyProblems(second.messages)).toEqual([]);
  });

  it("says a broken skill in one warning line, and the good ones still load", async () => {
    const { model, env } = await serve([textReply("Hi.")]);
    const cwd = project();
    writeSkills(join(cwd, ".harness", "skills"), {
      "review-checklist": REVIEW,
      Broken: skillFile("Broken", "Capitals are not allowed.", "x"),
    });
    const { code, stderr } = await runHere(["--cwd", cwd, "Hello"], env);
    expect(code).toBe(0);
    expect(stderr.match(/^s13: skills: .*$/gm)).toEqual([
      "s13: skills: .harness/skills/Broken/SKILL.md: name: lowercase letters, digits and hyphens only; skipped",
    ]);
    expect(skillDescription(sent(model)[0])).toContain("- review-checklist: ");
    expect(skillDescription(sent(model)[0])).not.toContain("Broken");
  });

  it("leaves out an allowed-tools rule s05 cannot read, in one line, and loads the skill", async () => {
    const { model, env } = await serve([textReply("Hi.")]);
    userSkills(env, {
      "web-notes": skillFile("web-notes", "Reads pages.", "Fetch them.", "allowed-tools: WebFetch Bash(git log:*)\n"),
    });
    const { code, stderr } = await runHere(["--cwd", project(), "Hello"], env);
    expect(code).toBe(0);
    expect(stderr.match(/^s13: skills: .*$/gm)).toEqual([
      "s13: skills: ~/.harness/skills/web-notes/SKILL.md: allowed-tools: not rules here, left out: WebFetch",
    ]);
    expect(skillDescription(sent(model)[0])).toContain("- web-notes: Reads pages.");
  });

  it("lets the project's skill win a name clash, said once for the session", async () => {
    const { model, env } = await serve([textReply("One."), textReply("Two.")]);
    const cwd = project();
    writeSkills(join(cwd, ".harness", "skills"), { "review-checklist": REVIEW });
    userSkills(env, { "review-checklist": skillFile("review-checklist", "My own review.", "Mine.") });
    const { code, stderr } = await runHere(["--cwd", cwd], env, "Hello\nAgain\n");
    expect(code).toBe(0);
    expect(stderr.match(/is used; the user's skill "review-checklist"/g)).toHaveLength(1);
    for (const body of sent(model)) {
      expect(skillDescription(body)).toContain("- review-checklist: Reviews a change");
      expect(skillDescription(body)).not.toContain("My own review.");
    }
  });

  it("runs /NAME args in the REPL: the body, its arguments in place, sent as the prompt", async () => {
    const { model, env } = await serve([textReply("Release 0.2, noted.")]);
    const home = userSkills(env, {});
    cpSync(join(EXAMPLE_SKILLS, "release-notes"), join(home, "skills", "release-notes"), { recursive: true });
    const { code, stdout } = await runHere(["--cwd", project()], env, "/release-notes 0.2\n");
    expect(code).toBe(0);
    expect(stdout).toContain("Release 0.2, noted.");
    const [first] = sent(model);
    const prompt = JSON.stringify(first.messages.at(-1));
    expect(prompt).toContain(
      `/release-notes 0.2\\n\\nSkill \\"release-notes\\". Base directory for this skill: ${home}`,
    );
    expect(prompt).toContain('under the heading \\"Release 0.2\\"');
    expect(prompt).not.toContain("$ARGUMENTS");
  });

  it("lets allowed-tools run without a question while the skill is active, and not after its run", async () => {
    const { model, env } = await serve([bash(LOG), textReply("Notes written."), bash(LOG), textReply("Refused.")]);
    const home = userSkills(env, {});
    cpSync(join(EXAMPLE_SKILLS, "release-notes"), join(home, "skills", "release-notes"), { recursive: true });
    const { code, stderr } = await runHere(["--cwd", gitProject()], env, "/release-notes 0.2\nRun git log again\n");
    expect(code).toBe(0);
    const [during] = lastResults(sent(model)[1]);
    expect(during.is_error).toBeFalsy();
    expect(toolResultText(during)).toMatch(/^[0-9a-f]{7,} Add the cart$/m);
    const [after] = lastResults(sent(model)[3]);
    expect(after.is_error).toBe(true);
    expect(toolResultText(after)).toMatch(/^Error \[not_approved\]: /);
    expect(stderr.match(/no terminal to ask/g)).toHaveLength(1); // the second run's question, not the first's
  });

  it("grants allowed-tools from the model's skill call too, until the run ends", async () => {
    const logger = skillFile("log-reader", "Reads the git log.", `Run \`${LOG}\`.`, "allowed-tools: Bash(git log:*)\n");
    const { model, env } = await serve([
      skillCall("log-reader"),
      bash(LOG),
      textReply("Read."),
      bash(LOG),
      textReply("No."),
    ]);
    userSkills(env, { "log-reader": logger });
    const { code } = await runHere(["--cwd", gitProject()], env, "Read the log\nRead it again\n");
    expect(code).toBe(0);
    expect(lastResults(sent(model)[2])[0].is_error).toBeFalsy();
    expect(toolResultText(lastResults(sent(model)[4])[0])).toMatch(/^Error \[not_approved\]: /);
  });

  it("applies a project's allowed-tools only once trusted by s05's rule; untrusted, the skill loads and one line says so", async () => {
    const steps = () => [bash(LOG), textReply("Done.")];
    const cwd = gitProject();
    copyExampleSkills(cwd);
    const untrusted = await serve(steps());
    const first = await runHere(["--cwd", cwd], untrusted.env, "/release-notes 0.2\n");
    expect(first.code).toBe(0);
    expect(first.stderr.match(/project settings not applied.*$/gm)).toEqual([
      "project settings not applied (not trusted yet): allowed-tools of 1 skill in .harness/skills; start the harness at a terminal to review them",
    ]);
    expect(JSON.stringify(sent(untrusted.model)[0].messages)).toContain("Release 0.2"); // it loaded
    expect(toolResultText(lastResults(sent(untrusted.model)[1])[0])).toMatch(/^Error \[not_approved\]: /);

    const trusted = await serve(steps());
    const home = trusted.env.HARNESS_HOME as string;
    trustProject(cwd, [shippedSkills(discoverSkills(cwd, home))], { home });
    const second = await runHere(["--cwd", cwd], trusted.env, "/release-notes 0.2\n");
    expect(second.stderr).not.toContain("not applied");
    const [ran] = lastResults(sent(trusted.model)[1]);
    expect(ran.is_error).toBeFalsy();
    expect(toolResultText(ran)).toMatch(/Add the cart/);
  });

  it("asks at a terminal about a project's allowed-tools, in the one trust question; trusted, the command runs unasked", async () => {
    const logger = skillFile("log-reader", "Reads the git log.", `Run \`${LOG}\`.`, "allowed-tools: Bash(git log:*)\n");
    const cwd = gitProject();
    writeSkills(join(cwd, ".harness", "skills"), { "log-reader": logger });
    const { env } = await serve([skillCall("log-reader"), bash(LOG), textReply("Read.")]);
    const { code, stdout } = await runAtTerminal(["--cwd", cwd, "Read the log"], env, "y\n");
    expect(code).toBe(0);
    expect(stdout).toContain("skill log-reader: allowed-tools Bash(git log:*)   (.harness/skills/log-reader/SKILL.md)");
    expect(stdout).toMatch(/[0-9a-f]{7,} Add the cart/);
    expect(stdout).not.toContain("Run it?"); // no permission question for the command: the skill's rule allowed it
    expect(stdout).toContain("Read.");
  }, 60_000);

  it("keeps a disable-model-invocation skill out of the model's list, and refuses the model's call for it", async () => {
    const { model, env } = await serve([skillCall("release-notes"), textReply("It is yours.")]);
    const cwd = project();
    writeSkills(join(cwd, ".harness", "skills"), { "review-checklist": REVIEW });
    cpSync(join(EXAMPLE_SKILLS, "release-notes"), join(cwd, ".harness", "skills", "release-notes"), {
      recursive: true,
    });
    expect((await runHere(["--cwd", cwd, "Write the release notes"], env)).code).toBe(0);
    const [first, second] = sent(model);
    expect(skillDescription(first)).toContain("review-checklist");
    expect(skillDescription(first)).not.toContain("release-notes");
    const [result] = lastResults(second);
    expect(result.is_error).toBe(true);
    expect(toolResultText(result)).toBe(
      'Error [user_only]: the skill "release-notes" is invoked only by the user (/release-notes).',
    );
  });

  it("offers no skill tool when every skill is the user's to invoke, or with --no-skills", async () => {
    const { model, env } = await serve([textReply("One."), textReply("Two.")]);
    const cwd = project();
    cpSync(join(EXAMPLE_SKILLS, "release-notes"), join(cwd, ".harness", "skills", "release-notes"), {
      recursive: true,
    });
    expect((await runHere(["--cwd", cwd, "Hello"], env)).code).toBe(0);
    writeSkills(join(cwd, ".harness", "skills"), { "review-checklist": REVIEW, Broken: "no frontmatter\n" });
    const off = await runHere(["--cwd", cwd, "--no-skills", "Hello"], env);
    expect(off.code).toBe(0);
    expect(off.stderr).not.toContain("skills:");
    expect(sent(model).map(toolNames)).toEqual([
      expect.not.arrayContaining(["skill"]),
      expect.not.arrayContaining(["skill"]),
    ]);
  });

  it("answers an unknown skill's name with an error that lists the skills there are", async () => {
    const { model, env } = await serve([skillCall("wizard"), textReply("No such skill.")]);
    const cwd = project();
    writeSkills(join(cwd, ".harness", "skills"), { "review-checklist": REVIEW });
    expect((await runHere(["--cwd", cwd, "Do magic"], env)).code).toBe(0);
    const [result] = lastResults(sent(model)[1]);
    expect(result.is_error).toBe(true);
    expect(toolResultText(result)).toBe('Error [unknown_skill]: there is no skill "wizard". Skills: review-checklist.');
  });

  it("reads a file the body names from the skill's folder, inside .harness, and nothing else of .harness", async () => {
    const cwd = project({ ".harness/settings.json": '{"permissions":{}}\n' });
    writeSkills(join(cwd, ".harness", "skills"), { "review-checklist": REVIEW });
    writeFileSync(join(cwd, ".harness", "skills", "review-checklist", "checklist.md"), "- no TODO left\n");
    const dir = join(cwd, ".harness", "skills", "review-checklist");
    const { model, env } = await serve([
      skillCall("review-checklist"),
      reply([
        toolUse("read_file", { path: join(dir, "checklist.md") }),
        toolUse("read_file", { path: join(dir, "..", "..", "settings.json") }),
      ]),
      textReply("Read."),
    ]);
    expect((await runHere(["--cwd", cwd, "Review my change"], env)).code).toBe(0);
    const [inSkill, settings] = lastResults(sent(model)[2]);
    expect(inSkill.is_error).toBeFalsy();
    expect(toolResultText(inSkill)).toContain("- no TODO left");
    expect(settings.is_error).toBe(true);
  });

  it("sends a read in a skill's folder through the rules and the hooks: a deny rule refuses it, a PreToolUse hook sees and blocks it", async () => {
    const cwd = project();
    const dir = join(cwd, ".harness", "skills", "review-checklist");
    writeSkills(join(cwd, ".harness", "skills"), { "review-checklist": REVIEW });
    writeFileSync(join(dir, "checklist.md"), "- no TODO left MARK\n");
    writeFileSync(join(dir, "blocked.md"), "BLOCKED-MARK\n");
    mkdirSync(join(dir, "private"));
    writeFileSync(join(dir, "private", "key.md"), "PRIVATE-MARK\n");
    // each read_file and grep call's input kept, one a line; a read of blocked.md blocked
    const record =
      'input=$(cat); echo "$input" >> hook-inputs.jsonl; case "$input" in *blocked.md*) echo "not that file" >&2; exit 2;; esac';
    const hooks = { PreToolUse: [{ matcher: "read_file|grep", hooks: [{ type: "command", command: record }] }] };
    writeFileSync(join(cwd, ".harness", "settings.local.json"), JSON.stringify({ hooks }));
    const { model, env } = await serve([
      skillCall("review-checklist"),
      reply([toolUse("read_file", { path: join(dir, "checklist.md") })]),
      reply([toolUse("read_file", { path: ".harness/skills/review-checklist/private/key.md" })]),
      reply([toolUse("grep", { pattern: "TODO|PRIVATE", path: dir })]),
      reply([toolUse("read_file", { path: join(dir, "blocked.md") })]),
      textReply("Read."),
    ]);
    const deny = "Read(.harness/skills/review-checklist/private/**)"; // written against the project, as every rule is
    expect((await runHere(["--cwd", cwd, "--deny", deny, "Review my change"], env)).code).toBe(0);
    const [read, denied, grep, blocked] = [2, 3, 4, 5].map((n) => lastResults(sent(model)[n])[0]);
    expect(toolResultText(read)).toContain("- no TODO left MARK");
    expect(toolResultText(denied)).toMatch(
      /^Error \[denied\]: denied by rule Read\(\.harness\/skills\/review-checklist\/private\/\*\*\) from --deny/,
    );
    expect(toolResultText(grep)).toContain("checklist.md:1: - no TODO left MARK");
    expect(toolResultText(grep)).not.toContain("PRIVATE-MARK"); // the search passes by what the rule denies
    expect(toolResultText(blocked)).toMatch(/^Error \[denied\]: a PreToolUse hook blocked this call: not that file/);
    expect(JSON.stringify(sent(model)).includes("BLOCKED-MARK")).toBe(false);
    // the hook saw each call as the model sent it, in the project: the rule's denial never reached it
    const seen = readFileSync(join(cwd, "hook-inputs.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(seen.map((input) => [input.tool_name, input.tool_input.path, input.cwd])).toEqual([
      ["Read", join(dir, "checklist.md"), cwd],
      ["Grep", dir, cwd],
      ["Read", join(dir, "blocked.md"), cwd],
    ]);
  });

  it("preloads the skills a subagent definition lists into its child's system prompt", async () => {
    const { model, env } = await serve([
      reply([toolUse("task", { description: "Review", prompt: "Review the change", subagent_type: "reviewer" })]),
      textReply("Child reviewed."),
      textReply("Done."),
    ]);
    const cwd = project();
    const home = userSkills(env, { "review-checklist": REVIEW });
    mkdirSync(join(home, "agents"), { recursive: true });
    writeFileSync(
      join(home, "agents", "reviewer.md"),
      "---\nname: reviewer\ndescription: Reviews.\nskills: [review-checklist, missing-one]\n---\nYou review.\n",
    );
    const { code, stderr } = await runHere(["--cwd", cwd, "Review it"], env);
    expect(code).toBe(0);
    expect(stderr).toContain(
      'agents: ~/.harness/agents/reviewer.md: skills: there is no skill "missing-one"; left out',
    );
    const child = sent(model)[1];
    expect(systemText(child)).toMatch(/^You review\.\n\nSkills loaded for you:\n\nSkill "review-checklist"\. /);
    expect(systemText(child)).toContain(BODY);
    expect(toolNames(child)).not.toContain("skill");
  });

  it("lets a subagent read a file in the folder of a skill its kind preloads, through its own rules", async () => {
    const steps: ScriptStep[] = [];
    const { model, env } = await serve(() => steps.shift() ?? textReply("(no step left)"));
    const home = userSkills(env, { "review-checklist": REVIEW });
    const dir = join(home, "skills", "review-checklist");
    writeFileSync(join(dir, "checklist.md"), "- no TODO left\n");
    writeFileSync(join(dir, "private.md"), "PRIVATE-MARK\n");
    mkdirSync(join(home, "agents"), { recursive: true });
    writeFileSync(
      join(home, "agents", "reviewer.md"),
      "---\nname: reviewer\ndescription: Reviews.\nskills: [review-checklist]\n---\nYou review.\n",
    );
    steps.push(
      reply([toolUse("task", { description: "Review", prompt: "Review the change", subagent_type: "reviewer" })]),
      reply([
        toolUse("read_file", { path: join(dir, "checklist.md") }),
        toolUse("read_file", { path: join(dir, "private.md") }),
      ]),
      textReply("Child reviewed."),
      textReply("Done."),
    );
    const args = ["--cwd", project(), "--deny", `Read(/${join(dir, "private.md")})`, "Review it"];
    expect((await runHere(args, env)).code).toBe(0);
    const [read, denied] = lastResults(sent(model)[2]);
    expect(toolResultText(read)).toContain("- no TODO left");
    expect(denied.is_error).toBe(true);
    expect(toolResultText(denied)).toMatch(/^Error \[denied\]: denied by rule Read\(/);
  });

  it("restates the body of a skill in use after a compaction summarised its loading away; a resume keeps it in use", async () => {
    const steps = [skillCall("review-checklist"), textReply("Reviewed."), textReply("Going on."), textReply("Still.")];
    const { model, env } = await serve((request) =>
      isSummary(request) ? textReply("## Task\nReview the change.") : (steps.shift() ?? textReply("?")),
    );
    const cwd = project();
    writeSkills(join(cwd, ".harness", "skills"), { "review-checklist": REVIEW });
    const { code, stdout } = await runHere(["--cwd", cwd], env, "Review my change\n/compact\nGo on\n");
    expect(code).toBe(0);
    expect(stdout).toMatch(/context: \/compact: summarised 4 messages, kept 0/);
    const after = sent(model).filter((body) => !isSummary(body))[2];
    const opening = JSON.stringify(after.messages[0]);
    expect(JSON.stringify(after.messages)).not.toContain('"name":"skill"');
    expect(opening).toContain('The skill \\"review-checklist\\" is in use');
    expect(opening).toContain(BODY);
    // resumed, the skill is in use again: a compaction there restates it too
    const resumed = await runHere(["--cwd", cwd, "--continue"], env, "/compact\nAnd now?\n");
    expect(resumed.code).toBe(0);
    const last = sent(model)
      .filter((body) => !isSummary(body))
      .at(-1) as MessageCreateParams;
    expect(JSON.stringify(last.messages[0])).toContain('The skill \\"review-checklist\\" is in use');
  });
});

describe("restateSkills", () => {
  it("adds nothing when what follows the summary still holds the loaded text (a result, or a /NAME prompt kept)", () => {
    const skills = {
      inUse: new Map([["a", { skill: { name: "a" }, loaded: 'Skill "a". Base directory for this skill: /x\n\nbody' }]]),
    };
    const loaded = [...skills.inUse.values()][0].loaded;
    const messages = [
      { role: "user", content: [{ type: "text", text: "summary" }] },
      { role: "assistant", content: [{ type: "text", text: "ok" }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: loaded }] },
    ];
    restateSkills(skills as never)({ type: "context", change: { kind: "compacted" }, messages } as never);
    expect(messages[0].content).toHaveLength(1);
    const prompt = [
      {
        role: "user",
        content: [
          { type: "text", text: "summary" },
          { type: "text", text: `/a\n\n${loaded}` },
        ],
      },
    ];
    restateSkills(skills as never)({ type: "context", change: { kind: "compacted" }, messages: prompt } as never);
    expect(prompt[0].content).toHaveLength(2); // a /NAME prompt kept after the summary holds it
    const gone = [{ role: "user", content: [{ type: "text", text: "summary" }] }];
    restateSkills(skills as never)({ type: "context", change: { kind: "compacted" }, messages: gone } as never);
    expect(gone[0].content).toEqual([
      { type: "text", text: "summary" },
      { type: "text", text: skillRestatement([...skills.inUse.values()][0] as never) },
    ]);
  });
});
