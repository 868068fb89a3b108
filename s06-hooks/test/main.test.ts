/**
 * s06 through the real CLI: a home of its own, a scripted model served on 127.0.0.1 playing the
 * replies each test shows, whose requests the test reads; in a child process where a terminal is
 * the point (and once more to run the program itself), in the test's process otherwise.
 */
import { existsSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { TRUST_FILE } from "@harness/s05-permissions";
import {
  reply,
  ScriptedModel,
  type ScriptStep,
  startScriptedServer,
  textReply,
  toolUse,
} from "@harness/scripted-model";
import { historyProblems } from "@harness/shared";
import { cliRunner, fakeTerminal, until } from "@harness/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { main } from "../src/main.ts";
import { until as eventually, isRunning } from "./processes.ts";

const { cleanEnv, project, runCli, runHere, runAtTerminal } = cliRunner("s06-hooks", { main });

/** Settings with one group of `command` hooks on `event` (matching `matcher`, when given). */
const hooked = (event: string, command: string, matcher?: string) =>
  JSON.stringify({ hooks: { [event]: [{ ...(matcher ? { matcher } : {}), hooks: [{ type: "command", command }] }] } });

const servers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

/** A scripted model on 127.0.0.1 playing `script`, and the environment that points the CLI at it. */
async function scripted(script: ScriptStep[]) {
  const model = new ScriptedModel({ script });
  const server = await startScriptedServer(model);
  servers.push(server);
  return { model, env: cleanEnv({ ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: server.url }) };
}

/** The messages of each request the model received. */
const sent = (model: ScriptedModel) => model.requests.map((request) => request.body.messages as MessageParam[]);

/** The model asks for `touch made.txt`, then answers `answer`. */
const touchScript = (answer = "Done.") => [
  reply([toolUse("bash", { command: "touch made.txt" }, "toolu_touch")]),
  textReply(answer),
];

/** The CLI runs the model's `touch made.txt` in `cwd`, the rules allowing it: in this process, or with `child`, in a child. */
async function touch(cwd: string, { child = false } = {}) {
  const { model, env } = await scripted(touchScript());
  const run = await (child ? runCli : runHere)(["--cwd", cwd, "--allow", "Bash(touch:*)", "Make a file"], env);
  return { ...run, model };
}

/** The tool results the model read in its second request. */
const resultsRead = (model: ScriptedModel) =>
  sent(model)[1].at(-1)?.content as Array<{ tool_use_id: string; content: string; is_error: boolean }>;

/** The AgentLoopResult printed by --json: the last line of stdout. */
const jsonResult = (stdout: string) => JSON.parse(stdout.trimEnd().split("\n").at(-1) ?? "{}");

describe("pnpm s06: PreToolUse", () => {
  it("blocks a bash call when a PreToolUse hook exits 2, and the model reads the hook's stderr", async () => {
    const cwd = project({
      ".harness/settings.local.json": hooked("PreToolUse", "echo 'no writes on Fridays' >&2; exit 2", "Bash"),
    });
    const { code, stdout, model } = await touch(cwd, { child: true });
    expect(code).toBe(0);
    expect(existsSync(join(cwd, "made.txt"))).toBe(false);
    // the model's second turn reads the refusal: every tool_use was answered
    expect(resultsRead(model)).toEqual([
      {
        type: "tool_result",
        tool_use_id: "toolu_touch",
        content: "Error [denied]: a PreToolUse hook blocked this call: no writes on Fridays",
        is_error: true,
      },
    ]);
    expect(stdout).toContain("final_answer · 2 turns · 1 tool call");
  }, 60_000);

  it("does not block when a PreToolUse hook exits 1: the call runs and the user is told", async () => {
    const cwd = project({ ".harness/settings.local.json": hooked("PreToolUse", "echo oops >&2; exit 1", "Bash") });
    const { code, stdout, model } = await touch(cwd);
    expect(code).toBe(0);
    expect(readFileSync(join(cwd, "made.txt"), "utf8")).toBe("");
    expect(resultsRead(model)[0]).toMatchObject({ content: "(no output)\n[exit code 0]", is_error: false });
    expect(stdout).toMatch(/^hook: PreToolUse hook "echo oops >&2; exit 1" failed \(exit 1\): oops$/m);
  }, 60_000);

  const asks = JSON.stringify({
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      permissionDecision: "ask",
      permissionDecisionReason: "touching files needs a look",
    },
  });
  const askingHook = hooked("PreToolUse", `echo '${asks}'`, "Bash");

  it("puts a hook's ask about a call the rules allow to the user; with no terminal the answer is no, said once", async () => {
    const cwd = project({ ".harness/settings.local.json": askingHook });
    const { code, stderr, model } = await touch(cwd);
    expect(code).toBe(0);
    expect(existsSync(join(cwd, "made.txt"))).toBe(false);
    expect(resultsRead(model)[0]).toMatchObject({
      content:
        "Error [not_approved]: a PreToolUse hook asks about this call (touching files needs a look), and the answer was no, so nothing ran.",
      is_error: true,
    });
    expect(stderr.split("\n").filter((line) => line.includes("no terminal to ask"))).toEqual([
      's06: no terminal to ask "the command `touch made.txt` asks (by a PreToolUse hook: touching files needs a look). Run it?": answered no',
    ]);
  }, 60_000);

  it("runs the call a hook asks about when the user at the terminal answers yes", async () => {
    const cwd = project({ ".harness/settings.local.json": askingHook });
    const { model, env } = await scripted(touchScript());
    const term = fakeTerminal(env);
    const exited = main(["--cwd", cwd, "--allow", "Bash(touch:*)", "Make a file"], term.io);
    await until("the question", () => term.out().includes("touching files needs a look). Run it? [y/n] "));
    term.type("y\r");
    expect(await exited).toBe(0);
    expect(existsSync(join(cwd, "made.txt"))).toBe(true);
    expect(resultsRead(model)[0]).toMatchObject({ content: "(no output)\n[exit code 0]", is_error: false });
  }, 60_000);
});

describe("pnpm s06: hooks written for Claude Code", () => {
  /** A PreToolUse hook (on every tool) printing `output` and exiting 0. */
  const printing = (output: string) => hooked("PreToolUse", `cat <<'JSON'\n${output}\nJSON`, "*");
  /** The PreToolUse output of a hook that changes the call's input (and decides it, when `decision` is given). */
  const updating = (updatedInput: Record<string, unknown>, decision?: string) =>
    JSON.stringify({
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        ...(decision ? { permissionDecision: decision } : {}),
        updatedInput,
      },
    });
  /** One bash call `command`, then an answer; the tool results the model read; the lines for the user. */
  async function runs(cwd: string, command: string, rules: string[]) {
    const { model, env } = await scripted([reply([toolUse("bash", { command }, "toolu_1")]), textReply("Done.")]);
    const { code, stdout } = await runHere(["--cwd", cwd, ...rules, "Go"], env);
    expect(code).toBe(0);
    const hookLines = stdout.split("\n").filter((line) => line.startsWith("hook: "));
    return { result: resultsRead(model)[0], hookLines };
  }

  it("names the tools as Claude Code does in the hook's input, so a hook testing for Bash blocks bash", async () => {
    const guard = `tee -a inputs.jsonl | grep -q '"tool_name":"Bash"' && { echo 'no Bash here' >&2; exit 2; }; echo >> inputs.jsonl`;
    const cwd = project({ ".harness/settings.local.json": hooked("PreToolUse", guard), "notes.md": "hi\n" });
    const { model, env } = await scripted([
      reply([
        toolUse("read_file", { path: "notes.md" }, "toolu_read"),
        toolUse("bash", { command: "touch made.txt" }, "toolu_bash"),
      ]),
      textReply("Done."),
    ]);
    const { code } = await runHere(["--cwd", cwd, "--allow", "Bash(touch:*)", "Go"], env);
    expect(code).toBe(0);
    expect(existsSync(join(cwd, "made.txt"))).toBe(false);
    expect(resultsRead(model).map((result) => result.content)).toEqual([
      "1\thi",
      "Error [denied]: a PreToolUse hook blocked this call: no Bash here",
    ]);
    const inputs = readFileSync(join(cwd, "inputs.jsonl"), "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line));
    expect(inputs.map((input) => input.tool_name).sort()).toEqual(["Bash", "Read"]);
  }, 60_000);

  it("runs the call as a hook's updatedInput changed it", async () => {
    const cwd = project({ ".harness/settings.local.json": printing(updating({ command: "echo changed" })) });
    const { result, hookLines } = await runs(cwd, "echo original", ["--allow", "Bash(echo:*)"]);
    expect(result).toMatchObject({ content: "changed\n[exit code 0]", is_error: false });
    expect(hookLines).toEqual([
      'hook: a PreToolUse hook changed the call: bash {"command":"echo original"} is now bash {"command":"echo changed"}',
    ]);
  }, 60_000);

  it("decides the changed call again: a deny rule still wins over a hook's allow", async () => {
    const cwd = project({
      ".harness/settings.local.json": printing(updating({ command: "rm -f victim.txt" }, "allow")),
      "victim.txt": "keep me",
    });
    const { result } = await runs(cwd, "echo original", ["--allow", "Bash(echo:*)", "--deny", "Bash(rm:*)"]);
    expect(existsSync(join(cwd, "victim.txt"))).toBe(true);
    expect(result).toMatchObject({
      content: expect.stringMatching(/^Error \[denied\]: denied by rule Bash\(rm:\*\) from --deny: /),
      is_error: true,
    });
  }, 60_000);

  it("refuses a call whose changed input the tool does not take, and runs neither", async () => {
    const cwd = project({ ".harness/settings.local.json": printing(updating({ cmd: "touch other.txt" })) });
    const { result } = await runs(cwd, "touch made.txt", ["--allow", "Bash(touch:*)"]);
    expect(existsSync(join(cwd, "made.txt"))).toBe(false);
    expect(existsSync(join(cwd, "other.txt"))).toBe(false);
    expect(result).toMatchObject({
      content:
        'Error [invalid_arguments]: a PreToolUse hook changed this call\'s input (updatedInput) to one bash does not take (command: Instance does not have required property "command".); nothing ran.',
      is_error: true,
    });
  }, 60_000);

  it("says in one line that it ignored stdout that is not one JSON value, as Claude Code ignores it", async () => {
    const deny = JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny" } });
    const cwd = project({ ".harness/settings.local.json": printing(`checking the command...\n${deny}`) });
    const { result, hookLines } = await runs(cwd, "touch made.txt", ["--allow", "Bash(touch:*)"]);
    expect(existsSync(join(cwd, "made.txt"))).toBe(true);
    expect(result).toMatchObject({ is_error: false });
    expect(hookLines).toEqual([
      `hook: PreToolUse hook "cat <<'JSON'\\nchecking the command...\\n${deny.replaceAll('"', '\\"')}\\nJSON" printed something that is not one JSON value (it starts "checking the command..."), so nothing it printed was read`,
    ]);
  }, 60_000);

  it("ends what a hook leaves running when the hook exits", async () => {
    // a daemon: forked from a subshell that exits at once (so init adopts it), immune to hangups,
    // its streams closed; the subshell writes its pid before the hook goes on, so no race
    const daemon = "( nohup sleep 300 >/dev/null 2>&1 & echo $! > daemon.pid )";
    const cwd = project({ ".harness/settings.local.json": hooked("PreToolUse", daemon, "Bash") });
    await runs(cwd, "echo hi", ["--allow", "Bash(echo:*)"]);
    const pid = Number(readFileSync(join(cwd, "daemon.pid"), "utf8"));
    expect(await eventually(() => !isRunning(pid))).toBe(true);
  }, 60_000);

  it("gives a hook none of the harness's credentials", async () => {
    const cwd = project({ ".harness/settings.local.json": hooked("SessionStart", "env > hook-env.txt") });
    const { env } = await scripted([textReply("Hello.")]);
    const secrets = { OPENAI_API_KEY: "sk-openai-secret", ANTHROPIC_AUTH_TOKEN: "sk-ant-token-secret" };
    const { code } = await runHere(["--cwd", cwd, "hi"], { ...env, ...secrets });
    expect(code).toBe(0);
    const seen = readFileSync(join(cwd, "hook-env.txt"), "utf8");
    expect(seen).toContain(`HARNESS_PROJECT_DIR=${cwd}`);
    expect(seen).not.toMatch(/API_KEY|AUTH_TOKEN|secret|test-key/);
  }, 60_000);
});

describe("pnpm s06: PostToolUse", () => {
  const touch = reply([toolUse("bash", { command: "touch made.txt && echo made" }, "toolu_touch")]);
  const allow = ["--allow", "Bash(touch:*)", "--allow", "Bash(echo:*)"];

  it("puts a PostToolUse hook's text for the model beside the call's result", async () => {
    const context = JSON.stringify({
      hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "made.txt is new: add it to git" },
    });
    const cwd = project({ ".harness/settings.local.json": hooked("PostToolUse", `echo '${context}'`, "Bash") });
    const { model, env } = await scripted([touch, textReply("done")]);
    const { code } = await runHere(["--cwd", cwd, ...allow, "Make a file"], env);
    expect(code).toBe(0);
    const [, second] = sent(model);
    expect(second.at(-1)).toEqual({
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: "toolu_touch",
          content: "made\n[exit code 0]\n\n[PostToolUse hook]\nmade.txt is new: add it to git",
          is_error: false,
        },
      ],
    });
  }, 60_000);

  it("shows the model a PostToolUse exit 2's stderr and leaves the call done", async () => {
    const cwd = project({
      ".harness/settings.local.json": hooked("PostToolUse", "echo 'made.txt breaks the build' >&2; exit 2", "Bash"),
    });
    const { model, env } = await scripted([touch, textReply("done")]);
    const { code } = await runHere(["--cwd", cwd, ...allow, "Make a file"], env);
    expect(code).toBe(0);
    expect(existsSync(join(cwd, "made.txt"))).toBe(true);
    const result = sent(model)[1].at(-1)?.content as Array<{ content: string; is_error: boolean }>;
    expect(result[0].content).toBe("made\n[exit code 0]\n\n[PostToolUse hook]\nmade.txt breaks the build");
    expect(result[0].is_error).toBe(false);
  }, 60_000);
});

describe("pnpm s06: Stop", () => {
  // records what it read on stdin, then blocks, every time
  const blockingStop =
    "cat >> stop-inputs.jsonl; echo >> stop-inputs.jsonl; echo 'the tests fail: fix them' >&2; exit 2";

  it("ends the run after exactly one more model call when a Stop hook always blocks", async () => {
    const cwd = project({ ".harness/settings.local.json": hooked("Stop", blockingStop) });
    const { model, env } = await scripted([textReply("Done."), textReply("Still done."), textReply("never sent")]);
    const { code, stdout } = await runHere(["--cwd", cwd, "--json", "Tidy up"], env);
    expect(code).toBe(0);
    expect(model.requests).toHaveLength(2);
    const [first, second] = sent(model);
    expect(second.at(-1)).toEqual({ role: "user", content: "the tests fail: fix them" });
    expect([first, second].flatMap((messages) => historyProblems(messages))).toEqual([]);
    expect(historyProblems([...second, { role: "assistant", content: "Still done." }])).toEqual([]);
    expect(jsonResult(stdout)).toMatchObject({ stopReason: "final_answer", turns: 2, finalText: "Still done." });
    // the hook was told the second time that a Stop hook had sent the loop on
    const inputs = readFileSync(join(cwd, "stop-inputs.jsonl"), "utf8")
      .trim()
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line));
    expect(inputs.map((input) => input.stop_hook_active)).toEqual([false, true]);
    expect(stdout.split("\n").filter((line) => line.startsWith("hook: "))).toEqual([
      "hook: a Stop hook sent the loop on: the tests fail: fix them",
      "hook: a Stop hook blocked again after the loop went on once for this prompt; the answer stands: the tests fail: fix them",
    ]);
  }, 60_000);

  it("ends with max_turns when the turn budget leaves no room for the one more call", async () => {
    const cwd = project({ ".harness/settings.local.json": hooked("Stop", blockingStop) });
    const { model, env } = await scripted([textReply("Done."), textReply("never sent")]);
    const { code, stdout } = await runHere(["--cwd", cwd, "--json", "--max-turns", "1", "Tidy up"], env);
    expect(code).toBe(2);
    expect(model.requests).toHaveLength(1);
    expect(jsonResult(stdout)).toMatchObject({ stopReason: "max_turns", turns: 1 });
  }, 60_000);
});

describe("pnpm s06: UserPromptSubmit", () => {
  const guard = "grep -q password && { echo 'the prompt holds a password' >&2; exit 2; }; exit 0";

  it("sends nothing when a UserPromptSubmit hook exits 2: prompt_blocked, exit 4, one line for the user", async () => {
    const cwd = project({ ".harness/settings.local.json": hooked("UserPromptSubmit", guard) });
    const { model, env } = await scripted([textReply("never sent")]);
    const { code, stdout } = await runHere(["--cwd", cwd, "--json", "my password is hunter2"], env);
    expect(model.requests).toEqual([]);
    expect(code).toBe(4);
    expect(jsonResult(stdout)).toEqual({
      stopReason: "prompt_blocked",
      turns: 0,
      toolCalls: 0,
      finalText: "",
      providerStopReason: null,
      usage: { inputTokens: 0, outputTokens: 0 },
    });
    expect(stdout.split("\n").filter((line) => line.startsWith("hook: "))).toEqual([
      "hook: prompt blocked: the prompt holds a password",
    ]);
  }, 60_000);

  it("keeps a blocked prompt out of the history, and the REPL goes on to the next prompt", async () => {
    const cwd = project({ ".harness/settings.local.json": hooked("UserPromptSubmit", guard) });
    const { model, env } = await scripted([textReply("Hello.")]);
    const { code, stdout } = await runHere(["--cwd", cwd], env, "my password is hunter2\nhi\n");
    expect(code).toBe(0);
    expect(sent(model)).toEqual([[{ role: "user", content: "hi" }]]);
    expect(stdout).toContain("── prompt_blocked · 0 turns");
    expect(stdout).toContain("── final_answer · 1 turn");
  }, 60_000);
});

describe("pnpm s06: a hook's context beside the user's words", () => {
  const context = JSON.stringify({
    hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: "the build uses pnpm" },
  });
  const settings = JSON.stringify({
    hooks: {
      SessionStart: [{ hooks: [{ type: "command", command: "echo 'branch: main'" }] }],
      UserPromptSubmit: [{ hooks: [{ type: "command", command: `echo '${context}'` }] }],
    },
  });

  it("sends the hooks' context as labelled blocks before the prompt, so the prompt stays the message's last words", async () => {
    const cwd = project({ ".harness/settings.local.json": settings });
    const { model, env } = await scripted([textReply("Hello.")]);
    const { code } = await runHere(["--cwd", cwd, "hi"], env);
    expect(code).toBe(0);
    expect(sent(model)[0]).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "[SessionStart hook]\nbranch: main" },
          { type: "text", text: "[UserPromptSubmit hook]\nthe build uses pnpm" },
          { type: "text", text: "hi" },
        ],
      },
    ]);
  }, 60_000);

  it("leaves the prompt the demo model reads the user's, not the hook's", async () => {
    const cwd = project({ ".harness/settings.local.json": settings, "README.md": "# Demo\nA small project.\n" });
    const { code, stdout } = await runHere(["--offline", "--cwd", cwd, "Read README.md and summarise it"]);
    expect(code).toBe(0);
    expect(stdout).not.toContain("I am the offline scripted model");
    expect(stdout).toContain("read_file");
  }, 60_000);
});

describe("pnpm s06: trust", () => {
  // a project hook that leaves a mark when it runs
  const settings = hooked("SessionStart", "touch hook-ran");
  /** The environment of a CLI whose model answers each prompt with "Hello.". */
  const greeting = async (prompts = 1) =>
    (await scripted(Array.from({ length: prompts }, () => textReply("Hello.")))).env;

  it("runs the project's hooks when the user at the terminal answers yes, and asks again next time", async () => {
    const cwd = project({ ".harness/settings.json": settings });
    const env = await greeting();
    const { code, stdout } = await runAtTerminal(["--cwd", cwd, "hi"], env, "y\n");
    expect(code).toBe(0);
    expect(stdout).toContain("SessionStart hook: touch hook-ran   (.harness/settings.json)");
    expect(stdout).toContain("Hello.");
    expect(existsSync(join(cwd, "hook-ran"))).toBe(true);
    expect(existsSync(join(env.HARNESS_HOME ?? "", TRUST_FILE))).toBe(false);
  }, 60_000);

  it("runs nothing when the user answers no, and says so", async () => {
    const cwd = project({ ".harness/settings.json": settings });
    const { code, stdout } = await runAtTerminal(["--cwd", cwd, "hi"], await greeting(), "n\n");
    expect(code).toBe(0);
    expect(stdout).toContain("s06: project settings not applied (you said no): 1 hook in .harness/settings.json");
    expect(existsSync(join(cwd, "hook-ran"))).toBe(false);
  }, 60_000);

  it("stores always outside the project, and runs the hooks without asking from then on", async () => {
    const cwd = project({ ".harness/settings.json": settings });
    const env = await greeting(2);
    const first = await runAtTerminal(["--cwd", cwd, "hi"], env, "a\n");
    expect(first.stdout).toContain("[y/n/a]");
    expect(existsSync(join(env.HARNESS_HOME ?? "", TRUST_FILE))).toBe(true);
    const second = await runHere(["--cwd", cwd, "hi"], env);
    expect(second.code).toBe(0);
    expect(second.stdout + second.stderr).not.toContain("Apply them?");
    expect(second.stdout + second.stderr).not.toContain("not applied");
    expect(existsSync(join(cwd, "hook-ran"))).toBe(true);
  }, 60_000);

  it("runs nothing when the input ends at the question (Ctrl-D), and the REPL ends cleanly", async () => {
    const cwd = project({ ".harness/settings.json": settings });
    const term = fakeTerminal(cleanEnv());
    const exited = main(["--offline", "--cwd", cwd], term.io);
    // the session starts before the first prompt: the question comes first
    await until("the question", () => term.out().includes("[y/n/a] "));
    term.type("\x04");
    expect(await exited).toBe(0);
    expect(term.err()).toContain("s06: project settings not applied (you said no): 1 hook in .harness/settings.json\n");
    expect(term.out()).toContain("s06 >> ");
    expect(existsSync(join(cwd, "hook-ran"))).toBe(false);
  }, 60_000);

  it("runs no untrusted project hook without a terminal, and says so in one line", async () => {
    const cwd = project({ ".harness/settings.json": settings });
    const { code, stdout, stderr } = await runHere(["--cwd", cwd, "hi"], await greeting());
    expect(code).toBe(0);
    expect(stdout).toContain("Hello.");
    expect(existsSync(join(cwd, "hook-ran"))).toBe(false);
    expect(stderr.split("\n").filter((line) => line.includes("not applied"))).toEqual([
      "s06: project settings not applied (not trusted yet): 1 hook in .harness/settings.json; start the harness at a terminal to review them",
    ]);
  }, 60_000);

  it("asks once about the project's allow rules and hooks together; yes applies both, for this session", async () => {
    const both = JSON.stringify({ permissions: { allow: ["Bash(touch:*)"] }, ...JSON.parse(settings) });
    const cwd = project({ ".harness/settings.json": both });
    const { env } = await scripted(touchScript());
    const { code, stdout } = await runAtTerminal(["--cwd", cwd, "Make a file"], env, "y\n");
    expect(code).toBe(0);
    expect(stdout).toContain(
      "  allow Bash(touch:*)   (.harness/settings.json)\r\n" +
        "  SessionStart hook: touch hook-ran   (.harness/settings.json)\r\n" +
        "Apply them? yes (this session) / no / always (until they change) [y/n/a] ",
    );
    expect(stdout.split("[y/n").length).toBe(2); // one question: the touch itself was allowed
    expect(existsSync(join(cwd, "hook-ran"))).toBe(true);
    expect(existsSync(join(cwd, "made.txt"))).toBe(true);
    expect(existsSync(join(env.HARNESS_HOME ?? "", TRUST_FILE))).toBe(false);
  }, 60_000);

  it("runs no hook of a settings.local.json behind a link out of .harness untrusted, and says so in one line", async () => {
    const elsewhere = project({ "settings.local.json": hooked("SessionStart", "touch hook-ran") });
    const cwd = project();
    symlinkSync(elsewhere, join(cwd, ".harness"));
    const { code, stderr } = await runHere(["--cwd", cwd, "hi"], await greeting());
    expect(code).toBe(0);
    expect(existsSync(join(cwd, "hook-ran"))).toBe(false);
    expect(stderr.split("\n").filter((line) => line.includes("not applied"))).toEqual([
      "s06: project settings not applied (not trusted yet): 1 hook in .harness/settings.local.json (a link out of .harness); start the harness at a terminal to review them",
    ]);
  }, 60_000);
});

describe("pnpm s06: loading", () => {
  it("prints each hook that cannot be loaded on one line, and runs on", async () => {
    const cwd = project({
      ".harness/settings.local.json": JSON.stringify({ hooks: { PreToolUse: [{ hooks: [{ type: "command" }] }] } }),
    });
    const { model, env } = await scripted([textReply("Hello.")]);
    const { code, stderr } = await runHere(["--cwd", cwd, "hi"], env);
    expect(code).toBe(0);
    expect(stderr).toMatch(/^s06: hooks: .*settings\.local\.json/m);
    expect(model.requests).toHaveLength(1);
  }, 60_000);
});
