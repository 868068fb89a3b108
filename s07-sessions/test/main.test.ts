/**
 * s07 through the real CLI, with a harness home of its own, on a scripted model served on
 * 127.0.0.1 that plays the replies each test shows and records what it was sent: in child
 * processes where a signal, a second process or the program itself is the point, in the test's
 * process otherwise. Every kind of stop, then a resume: the history sent after it must pass the
 * scripted model's strict checks (it answers an invalid one with the API's 400, and the run fails),
 * and is the history the session had, the new prompt after it.
 */
import { appendFileSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { MessageParam, ToolResultBlockParam } from "@anthropic-ai/sdk/resources/messages";
import { projectSlug } from "@harness/s04-tracing";
import {
  reply,
  ScriptedModel,
  type ScriptStep,
  startScriptedServer,
  textReply,
  toolUse,
} from "@harness/scripted-model";
import { historyProblems } from "@harness/shared";
import { cliRunner, failWrites, fakeTerminal, until } from "@harness/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { INTERRUPTED } from "../src/interrupted-results.ts";
import { main } from "../src/main.ts";
import { historyOf, readTranscript } from "../src/read-transcript.ts";
import { sessionsDir } from "../src/store/sessions-dir.ts";
import { onlyTranscript, toolProcess, transcripts } from "./run-cli.ts";

const { cleanEnv, project, runCli, runHere, startCli } = cliRunner("s07-sessions", { main });

const BRANCH_PROMPT = "What is the current git branch?";
const BRANCH = ["--allow", "Bash(git branch:*)", BRANCH_PROMPT];
const RECALL = "What did you just tell me?";
const SLEEP = ["--allow", "Bash(sleep:*)", "Run `sleep 30`"];

/** The model's side of BRANCH: it runs `git branch --show-current`, then answers. */
const BRANCH_REPLIES: ScriptStep[] = [
  reply([toolUse("bash", { command: "git branch --show-current" }, "toolu_branch")]),
  textReply("The current branch is main."),
];
/** The model's side of SLEEP: it runs `sleep 30` (and is stopped there). */
const SLEEP_REPLY = reply([toolUse("bash", { command: "sleep 30" }, "toolu_sleep")]);
/** The answer to RECALL. */
const RECALLED = textReply("I told you the current branch is main.");

/** BRANCH's conversation as the session keeps it: prompt, call, result, answer. */
const BRANCH_HISTORY: MessageParam[] = [
  { role: "user", content: BRANCH_PROMPT },
  {
    role: "assistant",
    content: [{ type: "tool_use", id: "toolu_branch", name: "bash", input: { command: "git branch --show-current" } }],
  },
  {
    role: "user",
    content: [{ type: "tool_result", tool_use_id: "toolu_branch", content: "main\n[exit code 0]", is_error: false }],
  },
  { role: "assistant", content: [{ type: "text", text: "The current branch is main." }] },
];

const servers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

/** A scripted model on 127.0.0.1 playing `script` across the test's runs; the CLI's environment pointed at it. */
async function served(script: ScriptStep[], key = "test-key") {
  const model = new ScriptedModel({ script });
  const server = await startScriptedServer(model);
  servers.push(server);
  return { model, env: cleanEnv({ ANTHROPIC_API_KEY: key, ANTHROPIC_BASE_URL: server.url }) };
}

/** The messages of the model's request `n` (from 0). */
const sent = (model: ScriptedModel, n: number) => model.requests[n].body.messages as MessageParam[];

/** The records of a transcript, by what they hold: "user", "assistant", or "results" for tool results. */
function shape(path: string): string[] {
  return readTranscript(path).records.map(({ message }) =>
    message.role === "assistant"
      ? "assistant"
      : typeof message.content !== "string" && message.content[0]?.type === "tool_result"
        ? "results"
        : "user",
  );
}

describe("pnpm s07", () => {
  it("answers a follow-up from the history of the session it continues", async () => {
    const cwd = project({}, { git: true });
    const { model, env } = await served([...BRANCH_REPLIES, textReply("Nothing yet."), RECALLED]);
    const first = await runCli(["--cwd", cwd, ...BRANCH], env);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("The current branch is main.");
    const path = onlyTranscript(cwd, env);
    const id = path.slice(-"00000000-0000-0000-0000-000000000000.jsonl".length, -".jsonl".length);
    expect(first.stderr).toContain(`s07: session ${id} → ${path}\n`);

    // a new session sends nothing of it; the continued one sends all of it, then the new prompt
    const fresh = await runHere(["--cwd", cwd, RECALL], env);
    expect(fresh.code).toBe(0);
    expect(sent(model, 2)).toEqual([{ role: "user", content: RECALL }]);
    const spaced = await runHere(["--cwd", cwd, "--resume", id, RECALL], env);
    expect(spaced.code).toBe(1); // is the id the option's value or the prompt's first word? "=" says
    expect(spaced.stderr).toContain(`--resume takes its value joined with "=": write --resume=${id}`);
    const continued = await runHere(["--cwd", cwd, `--resume=${id.slice(0, 8)}`, RECALL], env);
    expect(continued.code).toBe(0);
    expect(continued.stderr).toContain(`s07: resumed session ${id}: 4 messages (${path})\n`);
    expect(sent(model, 3)).toEqual([...BRANCH_HISTORY, { role: "user", content: RECALL }]);
    expect(model.requests).toHaveLength(4);
    expect(shape(path)).toEqual(["user", "assistant", "results", "assistant", "user", "assistant"]);
  }, 60_000);

  it("keeps a REPL conversation as one session, every prompt in it", async () => {
    const cwd = project({}, { git: true });
    const { model, env } = await served([...BRANCH_REPLIES, RECALLED]);
    const cli = startCli(["--cwd", cwd, "--allow", "Bash(git branch:*)"], env);
    await until("the prompt", () => cli.stdout().includes("s07 >> "));
    cli.child.stdin?.write(`${BRANCH_PROMPT}\n`);
    await until("the answer", () => cli.stdout().includes("The current branch is main."));
    cli.child.stdin?.write(`${RECALL}\nq\n`);
    expect(await cli.exited).toBe(0);
    expect(sent(model, 2)).toEqual([...BRANCH_HISTORY, { role: "user", content: RECALL }]);
    expect(shape(onlyTranscript(cwd, env))).toEqual(["user", "assistant", "results", "assistant", "user", "assistant"]);
    expect(transcripts(cwd, env).filter((name) => name.endsWith(".lock"))).toEqual([]); // released at exit
  }, 60_000);

  it("resumes after Ctrl-C in the middle of a tool: the loop answered the call before it stopped", async () => {
    const cwd = project();
    const { model, env } = await served([SLEEP_REPLY, RECALLED]);
    const cli = startCli(["--cwd", cwd, ...SLEEP], env);
    await toolProcess(cli, /sleep 30/);
    cli.child.kill("SIGINT");
    expect(await cli.exited).toBe(130);
    const path = onlyTranscript(cwd, env);
    expect(shape(path)).toEqual(["user", "assistant", "results"]);
    const results = readTranscript(path).records[2].message.content as ToolResultBlockParam[];
    expect(results[0]).toMatchObject({ is_error: true });
    expect(results[0].content).toContain("[interrupted; the process group was killed]");

    const resumed = await runHere(["--cwd", cwd, "--continue", RECALL], env);
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).not.toContain("repaired"); // nothing was left to repair
    expect(model.requests).toHaveLength(2);
    expect(historyProblems(sent(model, 1))).toEqual([]);
    expect(sent(model, 1).at(-1)).toEqual({
      role: "user",
      content: [...results, { type: "text", text: RECALL }],
    });
    expect(shape(path)).toEqual(["user", "assistant", "results", "user", "assistant"]);
  }, 60_000);

  it("resumes after kill -9 in the middle of a tool, the repair written to the transcript", async () => {
    const cwd = project();
    const { model, env } = await served([SLEEP_REPLY, RECALLED]);
    const cli = startCli(["--cwd", cwd, ...SLEEP], env);
    await toolProcess(cli, /sleep 30/);
    process.kill(-(cli.child.pid as number), "SIGKILL");
    expect(await cli.exited).toBe(null);
    const path = onlyTranscript(cwd, env);
    expect(shape(path)).toEqual(["user", "assistant"]); // the call asked for, no result: the API would refuse this
    expect(transcripts(cwd, env)).toContain(path.split("/").at(-1)?.replace(".jsonl", ".lock")); // a dead process's lock

    const resumed = await runHere(["--cwd", cwd, "--continue", RECALL], env);
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain('s07: repaired: bash had no result recorded; answered "interrupted"\n');
    // the request after the resume: the repair, then the new prompt, in the one user message after the call
    expect(historyProblems(sent(model, 1))).toEqual([]);
    expect(sent(model, 1).at(-1)).toEqual({
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "toolu_sleep", content: INTERRUPTED.content, is_error: true },
        { type: "text", text: RECALL },
      ],
    });
    // on disk: the repair is there, between the call and the prompt, and the history reads back valid
    expect(shape(path)).toEqual(["user", "assistant", "results", "user", "assistant"]);
    expect(historyProblems(historyOf(readTranscript(path).records))).toEqual([]);
    expect(transcripts(cwd, env).filter((name) => name.endsWith(".lock"))).toEqual([]);
  }, 60_000);

  it("skips a torn last line, says so, cuts it off and goes on", async () => {
    const cwd = project({}, { git: true });
    const { model, env } = await served([...BRANCH_REPLIES, RECALLED]);
    await runHere(["--cwd", cwd, ...BRANCH], env);
    const path = onlyTranscript(cwd, env);
    const whole = readFileSync(path, "utf8");
    const torn = '{"type":"message","id":"0c5e","parentId":"a1","time":"2026-';
    appendFileSync(path, torn);
    const resumed = await runHere(["--cwd", cwd, "--continue", RECALL], env);
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain(
      `s07: skipped line 6, not whole (${torn.length} bytes: a write cut short): cut it off\n`,
    );
    expect(sent(model, 2)).toEqual([...BRANCH_HISTORY, { role: "user", content: RECALL }]);
    expect(readFileSync(path, "utf8").startsWith(whole)).toBe(true);
    expect(readTranscript(path).torn).toBeUndefined();
  }, 60_000);

  it("forks: a new session with the history, the original left byte for byte", async () => {
    const cwd = project({}, { git: true });
    const { model, env } = await served([...BRANCH_REPLIES, RECALLED]);
    await runHere(["--cwd", cwd, ...BRANCH], env);
    const original = onlyTranscript(cwd, env);
    const before = readFileSync(original);
    const forked = await runHere(["--cwd", cwd, "--continue", "--fork", RECALL], env);
    expect(forked.code).toBe(0);
    expect(sent(model, 2)).toEqual([...BRANCH_HISTORY, { role: "user", content: RECALL }]);
    expect(readFileSync(original).equals(before)).toBe(true);
    const copies = transcripts(cwd, env).filter((name) => !original.endsWith(name));
    expect(copies).toHaveLength(1);
    const fork = readTranscript(join(sessionsDir(cwd, env), copies[0]));
    expect(fork.header.forkedFrom).toBe(readTranscript(original).header.id);
    expect(forked.stderr).toContain(`s07: forked session ${fork.header.forkedFrom} as ${fork.header.id}: 4 messages`);
    expect(fork.records.map((r) => r.message.role)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
      "assistant",
    ]);
  }, 60_000);

  it("never lets two processes that resume one session write to it at once: the second forks", async () => {
    const cwd = project({}, { git: true });
    const { model, env } = await served([
      ...BRANCH_REPLIES,
      SLEEP_REPLY, // the first process's call, stopped there
      reply([toolUse("bash", { command: "echo second" }, "toolu_echo")]), // the second's
      textReply("It printed second."),
    ]);
    await runHere(["--cwd", cwd, ...BRANCH], env);
    const original = onlyTranscript(cwd, env);
    const resume = ["--cwd", cwd, "--continue", "--allow", "Bash(sleep:*)", "--allow", "Bash(echo:*)"];
    // the first has the session open and is in the middle of a tool when the second resumes it
    const first = startCli([...resume, "Run `sleep 30`"], env);
    first.child.stdin?.end();
    await toolProcess(first, /sleep 30/);
    const second = await runCli([...resume, "Run `echo second`"], env);
    first.child.kill("SIGINT"); // the first is still in its tool: stop it, as the user would
    expect([await first.exited, second.code]).toEqual([130, 0]);
    expect(first.stderr()).not.toContain("is open in process");
    expect(second.stderr).toContain(`is open in process ${first.child.pid}: forked it, so neither loses a line`);
    expect(model.requests).toHaveLength(5);
    const names = transcripts(cwd, env);
    expect(names.filter((name) => name.endsWith(".jsonl"))).toHaveLength(2);
    expect(names.filter((name) => name.endsWith(".lock"))).toEqual([]);
    // the original: its first run and the first process's, in order, and nothing of the second
    expect(shape(original)).toEqual([
      ...["user", "assistant", "results", "assistant"],
      ...["user", "assistant", "results"],
    ]);
    // the fork: the copy as it was (the first's call still running, so answered "interrupted" there), then its own run
    const fork = names.find((name) => name.endsWith(".jsonl") && !original.endsWith(name)) as string;
    const forkPath = join(sessionsDir(cwd, env), fork);
    expect(shape(forkPath)).toEqual([
      ...["user", "assistant", "results", "assistant"],
      ...["user", "assistant", "results", "user", "assistant", "results", "assistant"],
    ]);
    expect(historyProblems(historyOf(readTranscript(forkPath).records))).toEqual([]);
    expect(readTranscript(forkPath).records.at(-1)?.message.content).toEqual([
      { type: "text", text: "It printed second." },
    ]);
    expect(JSON.stringify(readTranscript(original).records.at(-1)?.message.content)).toContain("[interrupted");
  }, 60_000);

  it("never writes a key to the transcript, wherever it turns up in the conversation", async () => {
    const key = ["sk", "ant", "api03", "this-is-not-a-real-key-0123456789"].join("-"); // built, not written out
    const cwd = project();
    const { model, env } = await served(
      [reply([toolUse("bash", { command: `echo ${key}` })]), textReply(`It printed ${key}.`)],
      key,
    );
    const run = await runHere(["--cwd", cwd, "--allow", "Bash(echo:*)", `Run \`echo ${key}\``], env);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`It printed ${key}.`); // the conversation held it: the prompt, the call, its output, the answer
    expect(JSON.stringify(sent(model, 1))).toContain(`${key}\\n[exit code 0]`);
    expect(Object.values(model.requests[0].headers).join(" ")).toContain(key); // and the model call used it
    const text = readFileSync(onlyTranscript(cwd, env), "utf8");
    expect(text).not.toContain(key);
    expect(text).not.toContain("sk-ant-");
    expect(text.match(/\[REDACTED\]/g)?.length).toBeGreaterThanOrEqual(4);
  }, 60_000);

  it("keeps the model's file tools away from the transcripts when the project is the home directory", async () => {
    const home = project();
    /** The environment of a run on `script` in that home, the harness home the default: ~/.harness, inside the project. */
    const inHome = async (script: ScriptStep[]) => {
      const { model, env } = await served(script);
      const inside: NodeJS.ProcessEnv = { ...env, HOME: home };
      delete inside.HARNESS_HOME;
      return { model, env: inside };
    };
    const grep = await inHome([reply([toolUse("grep", { pattern: "TODO|FIXME" })]), textReply("There are none.")]);
    expect((await runHere(["--cwd", home, "Find the TODO comments in this repository"], grep.env)).code).toBe(0);
    // the prompt that names a TODO is in the transcript by then, and grep does not see it
    expect(sent(grep.model, 1).at(-1)).toMatchObject({
      content: [{ type: "tool_result", content: "No lines match /TODO|FIXME/.", is_error: false }],
    });
    const path = onlyTranscript(home, { HARNESS_HOME: join(home, ".harness") }); // where the default puts it
    const relativePath = path.slice(home.length + 1);
    const read = await inHome([reply([toolUse("read_file", { path: relativePath })]), textReply("I could not.")]);
    expect((await runHere(["--cwd", home, `Read ${relativePath}`], read.env)).code).toBe(0);
    const [result] = (sent(read.model, 1).at(-1) as MessageParam).content as ToolResultBlockParam[];
    expect(result).toMatchObject({ is_error: true, content: expect.stringMatching(/^Error \[denied\]/) });
  }, 60_000);

  it("refuses to start when HARNESS_HOME would put the transcripts inside the project", async () => {
    const cwd = project();
    const run = await runHere(["--offline", "--cwd", cwd, "hi"], cleanEnv({ HARNESS_HOME: join(cwd, "state") }));
    expect(run.code).toBe(1);
    expect(run.stderr.split("\n")[1]).toBe(
      `s07: error: the transcripts must be out of the tools' reach: ${join(cwd, "state", "projects", projectSlug(cwd), "sessions")} is inside the working directory ${cwd}, where the model's tools read: set HARNESS_HOME outside it`,
    );
    expect(transcripts(cwd, cleanEnv({ HARNESS_HOME: join(cwd, "state") }))).toEqual([]);
  }, 60_000);

  it("lets --resume alone pick a session on a terminal, the most recent first", async () => {
    const cwd = project({}, { git: true });
    const { model, env } = await served([
      ...BRANCH_REPLIES,
      reply([toolUse("bash", { command: "echo later" }, "toolu_later")]),
      textReply("It printed later."),
      RECALLED,
    ]);
    await runHere(["--cwd", cwd, ...BRANCH], env);
    await runHere(["--cwd", cwd, "--allow", "Bash(echo:*)", "Run `echo later`"], env);
    const [older, newer] = transcripts(cwd, env)
      .map((name) => readTranscript(join(sessionsDir(cwd, env), name)))
      .sort((a, b) => a.header.created.localeCompare(b.header.created));
    const term = fakeTerminal(env);
    const exited = main(["--cwd", cwd, "--resume", RECALL], term.io);
    await until("the first question", () => term.out().includes(`resume 1 (${newer.header.id.slice(0, 8)})? [y/n] `));
    term.type("n\r");
    await until("the second question", () => term.out().includes(`resume 2 (${older.header.id.slice(0, 8)})? [y/n] `));
    term.type("y\r");
    expect(await exited).toBe(0);
    expect(term.err()).toContain("s07: the sessions of this project, the most recent first:\n");
    expect(term.err()).toContain(`s07:   1. ${newer.header.id}  `);
    expect(term.err()).toContain(`s07:   2. ${older.header.id}  `);
    expect(sent(model, 4)).toEqual([...BRANCH_HISTORY, { role: "user", content: RECALL }]); // the older one's
  }, 60_000);

  it("picks no session when the input ends at the question (Ctrl-D): one error line, exit 1", async () => {
    const cwd = project({}, { git: true });
    const { model, env } = await served(BRANCH_REPLIES);
    await runHere(["--cwd", cwd, ...BRANCH], env);
    const term = fakeTerminal(env);
    const exited = main(["--cwd", cwd, "--resume"], term.io);
    await until("the question", () => term.out().includes("resume 1 ("));
    term.type("\x04");
    expect(await exited).toBe(1);
    expect(
      term
        .err()
        .split("\n")
        .filter((line) => line.startsWith("s07: error:")),
    ).toEqual(["s07: error: no session was picked"]);
    expect(model.requests).toHaveLength(2); // BRANCH's two: nothing was sent after
  }, 60_000);

  describe("with hooks", () => {
    /** Settings with one `command` hook on `event`. */
    const hooked = (event: string, command: string) =>
      JSON.stringify({ hooks: { [event]: [{ hooks: [{ type: "command", command }] }] } });

    it("tells SessionStart whether the session is new or resumed, and where a resumed one's transcript is", async () => {
      const record = "cat >> starts.jsonl; echo >> starts.jsonl";
      const cwd = project({ ".harness/settings.local.json": hooked("SessionStart", record) }, { git: true });
      const { env } = await served([...BRANCH_REPLIES, RECALLED]);
      await runHere(["--cwd", cwd, ...BRANCH], env);
      const path = onlyTranscript(cwd, env);
      expect((await runHere(["--cwd", cwd, "--continue", RECALL], env)).code).toBe(0);
      const starts = readFileSync(join(cwd, "starts.jsonl"), "utf8")
        .split("\n")
        .filter((line) => line.trim() !== "")
        .map((line) => JSON.parse(line));
      const id = readTranscript(path).header.id;
      expect(starts.map((input) => [input.source, input.transcript_path, input.session_id])).toEqual([
        ["startup", undefined, id],
        ["resume", path, id],
      ]);
    }, 60_000);

    it("never writes a prompt a UserPromptSubmit hook blocks, and the session goes on from before it", async () => {
      const guard = "grep -q password && { echo 'the prompt holds a password' >&2; exit 2; }; exit 0";
      const cwd = project({ ".harness/settings.local.json": hooked("UserPromptSubmit", guard) }, { git: true });
      const { model, env } = await served([...BRANCH_REPLIES, RECALLED]);
      const secret = "my password is hunter2";
      const alone = await runHere(["--cwd", cwd, secret], env);
      expect(alone.code).toBe(4);
      expect(transcripts(cwd, env)).toEqual([]); // a new session whose only prompt was blocked leaves no file
      expect(alone.stderr).not.toContain("s07: session ");
      await runHere(["--cwd", cwd, ...BRANCH], env);
      const path = onlyTranscript(cwd, env);
      const before = readFileSync(path);
      const blocked = await runHere(["--cwd", cwd, "--continue", secret], env);
      expect(blocked.code).toBe(4);
      expect(blocked.stdout).toContain("hook: prompt blocked: the prompt holds a password\n");
      expect(readFileSync(path).equals(before)).toBe(true);
      const resumed = await runHere(["--cwd", cwd, "--continue", RECALL], env);
      expect(resumed.code).toBe(0);
      expect(sent(model, 2)).toEqual([...BRANCH_HISTORY, { role: "user", content: RECALL }]);
      expect(model.requests).toHaveLength(3); // the blocked prompts were never sent
      expect(shape(path)).toEqual(["user", "assistant", "results", "assistant", "user", "assistant"]);
      expect(readFileSync(path, "utf8")).not.toContain("hunter2");
    }, 60_000);

    it("writes the message a Stop hook sends the loop on with, and resumes after it", async () => {
      const once = "test -e stopped-once || { touch stopped-once; echo 'Say it once more.' >&2; exit 2; }";
      const cwd = project({ ".harness/settings.local.json": hooked("Stop", once) }, { git: true });
      const { model, env } = await served([...BRANCH_REPLIES, textReply("The branch is main."), RECALLED]);
      const first = await runHere(["--cwd", cwd, ...BRANCH], env);
      expect(first.code).toBe(0);
      expect(first.stdout).toContain("hook: a Stop hook sent the loop on: Say it once more.\n");
      const path = onlyTranscript(cwd, env);
      expect(shape(path)).toEqual(["user", "assistant", "results", "assistant", "user", "assistant"]);
      expect(readTranscript(path).records[4].message).toEqual({ role: "user", content: "Say it once more." });
      const resumed = await runHere(["--cwd", cwd, "--continue", RECALL], env);
      expect(resumed.code).toBe(0);
      expect(sent(model, 3).slice(4, 6)).toEqual([
        { role: "user", content: "Say it once more." },
        { role: "assistant", content: [{ type: "text", text: "The branch is main." }] },
      ]);
      expect(historyProblems(historyOf(readTranscript(path).records))).toEqual([]);
      expect(shape(path)).toHaveLength(8);
    }, 60_000);
  });

  describe("errors: one line, exit 1, and the transcript left as it is", () => {
    it("refuses a transcript written by a newer version", async () => {
      const cwd = project({}, { git: true });
      const { model, env } = await served(BRANCH_REPLIES);
      await runHere(["--cwd", cwd, ...BRANCH], env);
      const path = onlyTranscript(cwd, env);
      const [header, ...rest] = readFileSync(path, "utf8").split("\n");
      writeFileSync(path, [JSON.stringify({ ...JSON.parse(header), version: 2 }), ...rest].join("\n"));
      const before = readFileSync(path);
      const run = await runHere(["--cwd", cwd, "--continue", RECALL], env);
      expect(run.code).toBe(1);
      expect(run.stderr.split("\n").slice(1)).toEqual([
        `s07: error: ${path}: written by a newer version of the harness (transcript version 2; this one reads up to 1); the file is left as it is`,
        "",
      ]);
      expect(readFileSync(path).equals(before)).toBe(true);
      expect(model.requests).toHaveLength(2);
    }, 60_000);

    it.each([
      [["--continue", "--resume=abcd"], "--continue and --resume: give one of them"],
      [["--fork"], "--fork goes with --continue or --resume: it copies the session they open"],
      [["--continue"], "no session to continue in this project"],
    ])(
      "refuses %j",
      async (args, message) => {
        const cwd = project();
        // the session is opened before any prompt: the offline model is never asked
        const run = await runHere(["--offline", "--cwd", cwd, ...args, "hi"], cleanEnv());
        expect(run.code).toBe(1);
        expect(run.stderr).toContain(`s07: error: ${message}`);
        expect(run.stderr.trim().split("\n").length).toBeLessThanOrEqual(2);
      },
      60_000,
    );

    it("refuses a transcript whose header names another project (two paths that share a data folder)", async () => {
      const parent = project();
      const [dashed, dotted] = ["a-b", "a.b"].map((name) => join(parent, name));
      for (const dir of [dashed, dotted]) mkdirSync(dir);
      const { model, env } = await served([textReply("Hello from a-b.")]);
      await runHere(["--cwd", dashed, "hi"], env);
      const path = onlyTranscript(dashed, env);
      expect(onlyTranscript(dotted, env)).toBe(path); // /…/a-b and /…/a.b: one slug
      const before = readFileSync(path);
      const run = await runHere(["--cwd", dotted, "--continue", RECALL], env);
      expect(run.code).toBe(1);
      expect(run.stderr.split("\n").slice(1)).toEqual([
        `s07: error: ${path}: a session of another project (${dashed}), not of ${dotted}; the file is left as it is`,
        "",
      ]);
      expect(readFileSync(path).equals(before)).toBe(true);
      expect(model.requests).toHaveLength(1);
    }, 60_000);

    it("refuses a transcript that is a symbolic link, and writes nothing through it", async () => {
      const cwd = project({}, { git: true });
      const { model, env } = await served(BRANCH_REPLIES);
      await runHere(["--cwd", cwd, ...BRANCH], env);
      const path = onlyTranscript(cwd, env);
      const elsewhere = join(project(), "notes.jsonl"); // a file the link points at
      renameSync(path, elsewhere);
      symlinkSync(elsewhere, path);
      const before = readFileSync(elsewhere);
      for (const choice of [["--continue"], ["--continue", "--fork"]]) {
        const run = await runHere(["--cwd", cwd, ...choice, RECALL], env);
        expect(run.code).toBe(1);
        expect(run.stderr.split("\n").slice(1)).toEqual([
          `s07: error: ${path} is a symbolic link (to ${elsewhere}), not a transcript of its own; the file is left as it is`,
          "",
        ]);
      }
      expect(readFileSync(elsewhere).equals(before)).toBe(true);
      expect(model.requests).toHaveLength(2);
    }, 60_000);

    it("says in one line that a full disk stopped the transcript, and what it holds: every message before, whole", async () => {
      const cwd = project({}, { git: true });
      const { model, env } = await served([...BRANCH_REPLIES, RECALLED]);
      await runHere(["--cwd", cwd, ...BRANCH], env);
      const path = onlyTranscript(cwd, env);
      const before = readFileSync(path);
      failWrites({ matches: (file) => file === path, room: 40 }); // the prompt's line gets 40 bytes in
      const run = await runHere(["--cwd", cwd, "--continue", RECALL], env);
      expect(run.code).toBe(1);
      expect(run.stderr.trim().split("\n").at(-1)).toBe(
        `s07: error: the transcript ${path} could not be written (no space left on the disk, ENOSPC): it holds every message before this one, whole`,
      );
      expect(readFileSync(path).equals(before)).toBe(true); // the 40 bytes of a torn line taken back
      expect(readTranscript(path).torn).toBeUndefined();
      expect(model.requests).toHaveLength(2); // the prompt was never sent: it is not on disk
    }, 60_000);

    it("takes over a lock that holds no pid (empty, or garbage), and resumes the session in place", async () => {
      const cwd = project({}, { git: true });
      const { env } = await served([...BRANCH_REPLIES, RECALLED, textReply("Still main.")]);
      await runHere(["--cwd", cwd, ...BRANCH], env);
      const path = onlyTranscript(cwd, env);
      const id = readTranscript(path).header.id;
      for (const held of ["not a pid\n", ""]) {
        writeFileSync(path.replace(/\.jsonl$/, ".lock"), held);
        const run = await runHere(["--cwd", cwd, "--continue", RECALL], env);
        expect(run.code).toBe(0);
        expect(run.stderr).toContain(`s07: resumed session ${id}: `);
        expect(run.stderr).not.toContain("forked");
      }
      expect(transcripts(cwd, env)).toEqual([`${id}.jsonl`]); // no fork, and the lock released
    }, 60_000);

    it("asks for an id when --resume has no terminal to pick on, naming the latest", async () => {
      const cwd = project({}, { git: true });
      const { env } = await served(BRANCH_REPLIES);
      await runHere(["--cwd", cwd, ...BRANCH], env);
      const id = readTranscript(onlyTranscript(cwd, env)).header.id;
      const run = await runHere(["--cwd", cwd, "--resume", RECALL], env);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(
        `s07: error: --resume needs an id when there is no terminal to pick on: --resume=ID (the latest: ${id})\n`,
      );
    }, 60_000);
  });
});
