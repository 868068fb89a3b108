/**
 * pnpm s05: the rules read before any model call, each refusal read by the model, a question on
 * the terminal answered yes, no or always, and s04's options still there. One run is the offline
 * demo, in a child process; the others show the model's replies as scripts, served on 127.0.0.1.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { ToolResultBlockParam } from "@anthropic-ai/sdk/resources/messages";
import { usage } from "@harness/cli";
import { harnessDataDir, TRACE_FLAGS } from "@harness/s04-tracing";
import {
  reply,
  ScriptedModel,
  type ScriptStep,
  startScriptedServer,
  textReply,
  toolUse,
} from "@harness/scripted-model";
import { cleanUpAfter, cliRunner, fakeTerminal, until } from "@harness/testkit";
import { describe, expect, it } from "vitest";
import { LOCAL_SETTINGS, PERMISSION_FLAGS, PROJECT_SETTINGS, TRUST_FILE } from "../src/index.ts";
import { chapter, main } from "../src/main.ts";

const { cleanEnv, project, runAtTerminal, runCli, runHere } = cliRunner("s05-permissions", { main });

/** The scripted model with these replies, served on 127.0.0.1 until the test ends, and the environment that points the CLI at it. */
async function serve(script: ScriptStep[]) {
  const model = new ScriptedModel({ script });
  const server = await startScriptedServer(model);
  cleanUpAfter(() => server.close());
  const connection = { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: server.url };
  return { model, connection, env: cleanEnv(connection) };
}

/** The tool results the model read with request `n` (from 0). */
function resultsRead(model: ScriptedModel, n: number): ToolResultBlockParam[] {
  const content = model.requests[n].body.messages.at(-1)?.content;
  return Array.isArray(content)
    ? (content.filter((block) => block.type === "tool_result") as ToolResultBlockParam[])
    : [];
}

/** A turn that runs `command` with bash, then an answer. */
const runs = (command: string) => [reply([toolUse("bash", { command })]), textReply("Done.")];

describe("pnpm s05", () => {
  it("leaves build/ in place when a line runs rm after an allowed git diff, and the model reads why", async () => {
    const cwd = project({ "build/app.js": "x" }, { git: true });
    const { code, stdout, stderr } = await runCli([
      "--offline",
      "--cwd",
      cwd,
      "--allow",
      "Bash(git diff:*)",
      "Run git diff && rm -rf build",
    ]);
    expect(code).toBe(0);
    expect(existsSync(join(cwd, "build", "app.js"))).toBe(true);
    expect(stdout).toContain(
      "The harness did not run `git diff && rm -rf build`. It said: the simple command `rm -rf build` in " +
        "`git diff && rm -rf build` asks (in default mode a command asks), and the answer was no, so nothing ran. " +
        "The rule that would allow it: Bash(rm -rf build).",
    );
    expect(stderr).toContain('s05: no terminal to ask "the simple command `rm -rf build`');
  }, 60_000);

  it("denies by a --deny rule, in every mode", async () => {
    const cwd = project({ "build/app.js": "x" }, { git: true });
    const { model, env } = await serve(runs("git diff && rm -rf build"));
    const { code } = await runHere(
      ["--cwd", cwd, "--permission-mode", "bypassPermissions", "--deny", "Bash(rm:*)", "Run git diff && rm -rf build"],
      env,
    );
    expect(code).toBe(0);
    expect(existsSync(join(cwd, "build", "app.js"))).toBe(true);
    expect(resultsRead(model, 1)).toMatchObject([
      {
        is_error: true,
        content: expect.stringMatching(
          /^Error \[denied\]: denied by rule Bash\(rm:\*\) from --deny: the simple command `rm -rf build`/,
        ),
      },
    ]);
  }, 60_000);

  it("reads every --allow given, and runs the line they allow without asking", async () => {
    const cwd = project({ "build/app.js": "x" }, { git: true });
    const { model, env } = await serve(runs("git diff && rm -rf build"));
    const { code, stderr } = await runHere(
      ["--cwd", cwd, "--allow", "Bash(git diff:*)", "--allow=Bash(rm -rf build)", "Run git diff && rm -rf build"],
      env,
    );
    expect(code).toBe(0);
    expect(existsSync(join(cwd, "build"))).toBe(false);
    expect(resultsRead(model, 1)).toMatchObject([
      { is_error: false, content: expect.stringContaining("[exit code 0]") },
    ]);
    expect(stderr).not.toContain("no terminal");
  }, 60_000);

  it("writes nothing in plan mode, and tells the model it is planning", async () => {
    const cwd = project({ "notes.txt": "draft\n" });
    const { model, env } = await serve([
      reply([toolUse("edit_file", { path: "notes.txt", old_string: "draft", new_string: "final" })]),
      textReply("Plan: replace draft with final."),
    ]);
    const { code } = await runHere(
      ["--cwd", cwd, "--permission-mode", "plan", 'In notes.txt, replace "draft" with "final"'],
      env,
    );
    expect(code).toBe(0);
    expect(readFileSync(join(cwd, "notes.txt"), "utf8")).toBe("draft\n");
    expect(resultsRead(model, 1)).toMatchObject([
      { is_error: true, content: expect.stringMatching(/^Error \[denied\]: refused: you are in plan mode/) },
    ]);
  }, 60_000);

  it("keeps grep out of .env and .harness/ with no settings at all", async () => {
    const cwd = project({
      ".env": "API_KEY=sk-demo-123  # TODO rotate\n",
      ".harness/settings.json": '{"permissions": {"allow": ["Bash(git status)"]}}\n',
      "app.js": "// TODO: handle errors\n",
    });
    const { model, env } = await serve([reply([toolUse("grep", { pattern: "TODO" })]), textReply("One TODO.")]);
    const { code } = await runHere(["--cwd", cwd, "Find the TODO comments in this repository"], env);
    expect(code).toBe(0);
    expect(resultsRead(model, 1)).toMatchObject([{ is_error: false, content: "app.js:1: // TODO: handle errors" }]);
    expect(JSON.stringify(model.requests.map((r) => r.body))).not.toContain("sk-demo-123");
  }, 60_000);

  it("keeps the harness's own files (settings, trust, traces, transcripts) from every tool, and lets bash read a skill's", async () => {
    const cwd = project({
      ".harness/settings.json": '{"permissions": {"deny": ["Bash(rm:*)"]}}\n',
      ".harness/skills/deploy/steps.md": "1. build STEP-MARKER\n",
    });
    const home = join(
      project({ ".harness/trusted-projects.json": '{"projects": {"TRUST-MARKER": {}}}\n' }),
      ".harness",
    );
    const data = harnessDataDir(cwd, { HARNESS_HOME: home });
    const session = join(data, "sessions", "s1.jsonl");
    mkdirSync(dirname(session), { recursive: true });
    writeFileSync(session, '{"said": "SESSION-MARKER"}\n');
    const trace = join(data, "traces", "own.jsonl"); // this run's own trace (--trace=own), written as it goes
    const { model, connection } = await serve([
      reply([
        toolUse("read_file", { path: ".harness/settings.json" }),
        toolUse("read_file", { path: join(home, "trusted-projects.json") }),
        toolUse("glob", { pattern: "**", path: data }),
        toolUse("grep", { pattern: "model", path: trace }),
        toolUse("bash", { command: `cat ${session}` }),
        toolUse("bash", { command: "cat .harness/skills/deploy/steps.md" }),
      ]),
      textReply("Done."),
    ]);
    const env = cleanEnv({ ...connection, HARNESS_HOME: home });
    const args = ["--cwd", cwd, "--trace=own", "--allow", "Bash(cat:*)", "Read what the harness keeps"];
    expect((await runHere(args, env)).code).toBe(0);
    const results = resultsRead(model, 1);
    for (const result of results.slice(0, 5)) {
      expect(result).toMatchObject({
        is_error: true,
        content: expect.stringMatching(/^Error \[denied\]: denied by the default rule Read\(/),
      });
    }
    expect(results[5]).toMatchObject({ is_error: false, content: expect.stringContaining("STEP-MARKER") });
    expect(existsSync(trace)).toBe(true);
    const sent = JSON.stringify(model.requests.map((r) => r.body));
    for (const marker of ["TRUST-MARKER", "SESSION-MARKER", "Bash(rm:*)"]) expect(sent).not.toContain(marker);
  }, 60_000);

  it("stops on a settings file that does not parse: one line naming file, line and rule, before any model call", async () => {
    const model = new ScriptedModel({ script: [textReply("never")] });
    const server = await startScriptedServer(model);
    try {
      const cwd = project({
        ".harness/settings.json": '{\n  "permissions": {\n    "allow": ["Bash(git diff:*)", "Bash(npm test"]\n  }\n}\n',
      });
      const env = cleanEnv({ ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: server.url });
      const { code, stdout, stderr } = await runHere(["--cwd", cwd, "hi"], env);
      expect(code).toBe(1);
      expect(stderr).toBe(
        's05: error: .harness/settings.json:3: the rule "Bash(npm test" does not parse: expected a tool name, ' +
          "optionally with a specifier in parentheses, e.g. Bash(git diff:*)\n",
      );
      expect(stdout).toBe("");
      expect(model.requests).toEqual([]);
    } finally {
      await server.close();
    }
  }, 60_000);

  it("stops on a bad rule option or mode in one line", async () => {
    const cwd = project();
    const rule = await runHere(["--offline", "--cwd", cwd, "--deny", "Run(rm)", "hi"]);
    expect(rule.code).toBe(1);
    expect(rule.stderr).toBe(
      's05: error: --deny: the rule "Run(rm)" does not parse: unknown tool Run: rules name Bash, Read, Edit, Write, Glob or Grep\n',
    );
    const mode = await runHere(["--offline", "--cwd", cwd, "--permission-mode", "yolo", "hi"]);
    expect(mode.code).toBe(1);
    expect(mode.stderr).toBe(
      's05: error: --permission-mode: "yolo" is not a mode; use one of default, acceptEdits, plan, bypassPermissions\n',
    );
  }, 60_000);

  it("keeps s04's --trace, and records the refusal", async () => {
    const cwd = project({ "build/app.js": "x" }, { git: true });
    const { env } = await serve(runs("git diff && rm -rf build"));
    const { code, stdout } = await runHere(["--trace=perm", "--cwd", cwd, "Run git diff && rm -rf build"], env);
    expect(code).toBe(0);
    const path = /trace perm → (\S+)/.exec(stdout)?.[1] ?? "";
    expect(path.endsWith("perm.jsonl")).toBe(true);
    expect(readFileSync(path, "utf8")).toContain("Error [not_approved]");
    const bad = await runHere(["--offline", "--trace=../up", "--cwd", cwd, "hi"]);
    expect(bad).toMatchObject({
      code: 1,
      stderr: 's05: error: invalid trace id "../up": use letters, digits, . _ -\n',
    });
  }, 60_000);

  it("prints its help, the shared contract plus its own options", async () => {
    const { code, stdout } = await runHere(["--help"]);
    expect(code).toBe(0);
    // s04's --trace, then the mode and the rules
    expect(stdout).toBe(`${usage("s05", chapter.summary, [...TRACE_FLAGS, ...PERMISSION_FLAGS], { aborted: 130 })}\n`);
  }, 60_000);
});

describe("pnpm s05 on a terminal", () => {
  it("asks, and on always runs it, writes the rule to the local settings, and asks no more this session", async () => {
    const cwd = project({}, { git: true });
    const line = "git status --short; git diff";
    const { model, connection } = await serve([...runs(line), ...runs(line)]);
    const term = fakeTerminal({ INIT_CWD: cwd, ...connection });
    const exited = main([], term.io);
    await until("the REPL prompt", () => term.out().includes("s05 >> "));
    term.type("Run git status --short; git diff\r");
    const question =
      "the simple command `git status --short` in `git status --short; git diff` asks (in default mode a command asks). " +
      "Run it? (always allows Bash(git status --short), Bash(git diff)) [y/n/a] ";
    await until("the question", () => term.out().includes(question));
    term.type("a\r");
    await until("the answer", () => term.out().includes("── final_answer"));
    expect(term.out()).toContain(
      `allowed from now on: Bash(git status --short), Bash(git diff) (in ${LOCAL_SETTINGS})`,
    );
    expect(JSON.parse(readFileSync(join(cwd, LOCAL_SETTINGS), "utf8"))).toEqual({
      permissions: { allow: ["Bash(git status --short)", "Bash(git diff)"] },
    });
    term.type("Run git status --short; git diff\r");
    await until("the second answer", () => term.out().split("── final_answer").length === 3);
    expect(term.out().split("[y/n/a]").length).toBe(2); // asked once
    expect(resultsRead(model, 3)).toMatchObject([
      { is_error: false, content: expect.stringContaining("[exit code 0]") },
    ]);
    term.type("q\r");
    expect(await exited).toBe(0);
    expect(readdirSync(join(cwd, ".harness"))).toEqual(["settings.local.json"]);
  }, 60_000);

  it("on no, runs nothing and the model reads why", async () => {
    const cwd = project({ "build/app.js": "x" }, { git: true });
    const { model, connection } = await serve(runs("git diff && rm -rf build"));
    const term = fakeTerminal({ INIT_CWD: cwd, ...connection });
    const exited = main(["Run git diff && rm -rf build"], term.io);
    await until("the question", () => term.out().includes("[y/n/a] "));
    term.type("n\r");
    expect(await exited).toBe(0);
    expect(existsSync(join(cwd, "build", "app.js"))).toBe(true);
    expect(resultsRead(model, 1)).toMatchObject([
      {
        is_error: true,
        content: expect.stringMatching(/^Error \[not_approved\]: .*and the answer was no, so nothing ran\./),
      },
    ]);
    expect(existsSync(join(cwd, LOCAL_SETTINGS))).toBe(false);
  }, 60_000);
});

describe("pnpm s05: what a cloned project ships", () => {
  const allowTouch = JSON.stringify({ permissions: { allow: ["Bash(touch:*)"] } });
  /** The lines of `stderr` about project settings left out. */
  const leftOut = (stderr: string) => stderr.split("\n").filter((line) => line.includes("not applied"));

  it("does not run what a committed settings.json allows until the project is trusted, and says so in one line", async () => {
    const cwd = project({ [PROJECT_SETTINGS]: allowTouch }, { git: true });
    const { model, env } = await serve(runs("touch made.txt"));
    const { code, stderr } = await runHere(["--cwd", cwd, "Make a file"], env);
    expect(code).toBe(0);
    expect(existsSync(join(cwd, "made.txt"))).toBe(false);
    expect(resultsRead(model, 1)).toMatchObject([
      {
        is_error: true,
        content: expect.stringMatching(
          /^Error \[not_approved\]: the simple command `touch made.txt` asks \(in default mode/,
        ),
      },
    ]);
    expect(leftOut(stderr)).toEqual([
      "s05: project settings not applied (not trusted yet): 1 allow rule in .harness/settings.json; start the harness at a terminal to review them",
    ]);
  }, 60_000);

  const everything = JSON.stringify({
    permissions: { defaultMode: "bypassPermissions", disableDefaultDenies: true, allow: ["Bash"] },
  });
  /** A project whose settings.local.json switches everything on: committed, or behind a link out of .harness. */
  const shippedLocal = {
    committed: () => {
      const cwd = project({ [LOCAL_SETTINGS]: everything, ".env": "KEY=secret\n" }, { git: true });
      execFileSync("git", ["add", "-f", LOCAL_SETTINGS], { cwd });
      return { cwd, why: "tracked by git" };
    },
    linked: () => {
      const elsewhere = project({ "settings.local.json": everything });
      const cwd = project({ ".env": "KEY=secret\n" }, { git: true });
      symlinkSync(elsewhere, join(cwd, ".harness"));
      return { cwd, why: "a link out of .harness" };
    },
  };

  it.each(Object.keys(shippedLocal) as (keyof typeof shippedLocal)[])(
    "lets a %s settings.local.json neither bypass the rules nor switch the default denies off, untrusted",
    async (how) => {
      const { cwd, why } = shippedLocal[how]();
      const { model, env } = await serve([
        reply([toolUse("read_file", { path: ".env" }, "toolu_env"), toolUse("bash", { command: "touch made.txt" })]),
        textReply("Done."),
      ]);
      const { code, stderr } = await runHere(["--cwd", cwd, "Read .env and make a file"], env);
      expect(code).toBe(0);
      expect(existsSync(join(cwd, "made.txt"))).toBe(false);
      expect(resultsRead(model, 1)).toMatchObject([
        {
          is_error: true,
          content: expect.stringMatching(/^Error \[denied\]: denied by the default rule Read\(\/\/\*\*\/\.env\*\)/),
        },
        { is_error: true, content: expect.stringMatching(/^Error \[not_approved\]: /) },
      ]);
      expect(leftOut(stderr)).toEqual([
        `s05: project settings not applied (not trusted yet): 1 allow rule, defaultMode bypassPermissions, disableDefaultDenies in ${LOCAL_SETTINGS} (${why}); start the harness at a terminal to review them`,
      ]);
    },
    60_000,
  );

  it("asks at a terminal; always holds, without a terminal too, until the settings change", async () => {
    const cwd = project({ [PROJECT_SETTINGS]: allowTouch }, { git: true });
    const { env } = await serve([...runs("touch made.txt"), ...runs("touch made.txt"), ...runs("touch made.txt")]);
    const first = await runAtTerminal(["--cwd", cwd, "Make a file"], env, "a\n");
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(
      "This project ships settings that let more run, not trusted yet. They apply as you, on this machine:\r\n" +
        "  allow Bash(touch:*)   (.harness/settings.json)\r\n" +
        "Apply them? yes (this session) / no / always (until they change) [y/n/a] ",
    );
    expect(first.stdout.split("[y/n").length).toBe(2); // asked once: the touch itself was allowed
    expect(existsSync(join(cwd, "made.txt"))).toBe(true);
    expect(existsSync(join(env.HARNESS_HOME ?? "", TRUST_FILE))).toBe(true);

    rmSync(join(cwd, "made.txt"));
    const second = await runHere(["--cwd", cwd, "Make a file"], env);
    expect(existsSync(join(cwd, "made.txt"))).toBe(true);
    expect(leftOut(second.stderr)).toEqual([]);

    rmSync(join(cwd, "made.txt"));
    writeFileSync(join(cwd, PROJECT_SETTINGS), JSON.stringify({ permissions: { allow: ["Bash(touch:*)", "Bash"] } }));
    const third = await runHere(["--cwd", cwd, "Make a file"], env);
    expect(existsSync(join(cwd, "made.txt"))).toBe(false);
    expect(leftOut(third.stderr)).toEqual([
      "s05: project settings not applied (changed since you trusted them): 2 allow rules in .harness/settings.json; start the harness at a terminal to review them",
    ]);
  }, 60_000);
});

describe("pnpm s05: the harness's credentials", () => {
  it("gives a bash command none of them: no …_API_KEY, no …_AUTH_TOKEN, of any provider", async () => {
    const cwd = project({}, { git: true });
    const { model, env } = await serve(runs("env"));
    const secrets = { OPENAI_API_KEY: "sk-openai-secret", ANTHROPIC_AUTH_TOKEN: "sk-ant-token-secret" };
    const { code } = await runHere(["--cwd", cwd, "--allow", "Bash(env)", "Show the environment"], {
      ...env,
      ...secrets,
    });
    expect(code).toBe(0);
    const [result] = resultsRead(model, 1);
    expect(result).toMatchObject({ is_error: false, content: expect.stringContaining("PATH=") });
    expect(result.content).not.toMatch(/API_KEY|AUTH_TOKEN|secret|test-key/);
  }, 60_000);
});
