/**
 * The s04 command line, run as a learner runs it: `node --import tsx s04-tracing/src/main.ts`, in
 * a child process where the process is the point (a REPL typed into, Ctrl-C, kill -9) and once more
 * to run the program itself, its `main` in the test's process otherwise (testkit's runInProcess);
 * offline or against the scripted model served on 127.0.0.1.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "@harness/cli";
import {
  reply,
  ScriptedModel,
  type ScriptedServer,
  type ScriptStep,
  startScriptedServer,
  text,
  textReply,
  toolUse,
} from "@harness/scripted-model";
import { historyProblems } from "@harness/shared";
import { cleanUpAfter, failWrites, runInProcess } from "@harness/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { main } from "../src/main.ts";
import type { IterationRecord, ResultRecord } from "../src/trace-record.ts";
import { traceDir } from "../src/trace-writer.ts";
import { formatShow } from "../src/viewer/format-trace.ts";
import { type LoadedTrace, readTrace, requestOf, sentRequests, summariseTrace } from "../src/viewer/read-trace.ts";

const MAIN = join(REPO_ROOT, "s04-tracing", "src", "main.ts");
const README = "# Demo\n\nA small project.\n\n## Usage\n\nRun it.\n";

/** Cleanups for what a test started: servers, children, process groups. */
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A fresh directory, removed after the test. */
function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanUpAfter(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A fresh working directory holding a README. */
function workdir(): string {
  const dir = tempDir("s04-main-");
  writeFileSync(join(dir, "README.md"), README);
  return dir;
}

/**
 * The environment without credentials or harness settings of the shell running the tests, with a
 * HARNESS_HOME of its own: no test writes in the real ~/.harness.
 */
function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(env)) {
    if (name.startsWith("ANTHROPIC_") || name.startsWith("HARNESS_") || name === "INIT_CWD" || name === "DEBUG") {
      delete env[name];
    }
  }
  return { ...env, NO_COLOR: "1", HARNESS_HOME: tempDir("s04-home-"), ...extra };
}

/** Where the CLI, run in `env` with --cwd `cwd`, writes trace `id`. */
function tracePathFor(cwd: string, env: NodeJS.ProcessEnv, id: string): string {
  return join(traceDir(cwd, env), `${id}.jsonl`);
}

/** Start the CLI in its own process group. */
function start(args: string[], env: NodeJS.ProcessEnv): ChildProcess & { output: { stdout: string; stderr: string } } {
  const child = spawn(process.execPath, ["--import", "tsx", MAIN, ...args], {
    cwd: REPO_ROOT,
    env,
    detached: true,
    stdio: ["pipe", "pipe", "pipe"],
  });
  const output = { stdout: "", stderr: "" };
  child.stdout?.on("data", (chunk) => {
    output.stdout += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output.stderr += chunk;
  });
  cleanups.push(() => killGroup(child.pid));
  return Object.assign(child, { output });
}

/** Run the CLI to the end. */
async function run(args: string[], env: NodeJS.ProcessEnv = cleanEnv()) {
  const child = start(args, env);
  child.stdin?.end();
  const code = await exited(child);
  return { code, ...child.output };
}

/** Run the CLI to the end in this process, as `run` runs it in a child. */
function runHere(args: string[], env: NodeJS.ProcessEnv = cleanEnv(), input = "") {
  return runInProcess(main, args, env, input);
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.on("close", (code) => resolve(code)));
}

function killGroup(pid: number | undefined): void {
  if (!pid) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {} // already gone
}

/** Poll until `check` holds (a deadline keeps a broken run from hanging the suite). */
async function until(what: string, check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Live (not zombie) processes: pid, parent, group and command line. */
function processes(): Array<{ pid: number; ppid: number; pgid: number; args: string }> {
  const out = execFileSync("ps", ["-A", "-o", "pid=,ppid=,pgid=,stat=,args="], { encoding: "utf8" });
  return out
    .split("\n")
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null && !m[4].startsWith("Z"))
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), pgid: Number(m[3]), args: m[5] }));
}

/** Complete lines of a file (a torn last line is not one). */
function completeLines(path: string): string[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8").split("\n").slice(0, -1);
}

/** True when every request the CLI recorded (and so sent) reads back and had a valid history. */
function sentValidHistories(trace: LoadedTrace): boolean {
  const requests = [...sentRequests(trace)];
  const recorded = trace.records.filter((r) => r.type !== "result").length;
  return (
    requests.length === recorded && requests.every(({ request }) => historyProblems(request.messages).length === 0)
  );
}

async function scriptedServer(model: ScriptedModel): Promise<ScriptedServer> {
  const server = await startScriptedServer(model);
  cleanups.push(() => server.close());
  return server;
}

describe("pnpm s04 --trace", () => {
  it("records a run in the project's trace directory, outside --cwd, and says how to read it", async () => {
    const cwd = workdir();
    const env = cleanEnv();
    const { code, stdout, stderr } = await run(
      ["--offline", "--json", "--trace=my-run", "--cwd", cwd, "Read README.md and summarise it"],
      env,
    );
    expect(stderr).toMatch(/^Using the offline scripted model/);
    expect(code).toBe(0);
    const path = tracePathFor(cwd, env, "my-run");
    expect(path.startsWith(join(env.HARNESS_HOME ?? "?", "projects"))).toBe(true);
    expect(readdirSync(cwd)).toEqual(["README.md"]);
    expect(stdout).toContain(`trace my-run → ${path}\n`);
    // the tracer runs from the repository root: it is told which project
    expect(stdout).toContain(`pnpm trace show my-run --cwd ${cwd}`);
    expect(stdout).toContain(`pnpm trace view my-run --cwd ${cwd}`);

    const trace = readTrace(path);
    expect(trace.records.map((r) => r.type)).toEqual(["iteration", "iteration", "result"]);
    const printed = JSON.parse(stdout.trimEnd().split("\n").at(-1) ?? "");
    expect((trace.records.at(-1) as ResultRecord).result).toEqual(printed);
    const [first] = trace.records as IterationRecord[];
    expect(requestOf(trace, 1)?.messages).toEqual([{ role: "user", content: "Read README.md and summarise it" }]);
    expect(first.toolCalls[0]).toMatchObject({ name: "read_file", input: { path: "README.md" }, isError: false });
    expect(sentValidHistories(trace)).toBe(true);
  }, 60_000);

  it("takes a fresh id when --trace has none", async () => {
    const cwd = workdir();
    const env = cleanEnv();
    const { code, stdout } = await runHere(
      ["--offline", "--trace", "--cwd", cwd, "Read README.md and summarise it"],
      env,
    );
    expect(code).toBe(0);
    const id = /trace (\d{8}-\d{6}-[a-z0-9]+) →/.exec(stdout)?.[1];
    expect(id).toBeDefined();
    expect(readdirSync(traceDir(cwd, env))).toEqual([`${id}.jsonl`]);
    expect(sentValidHistories(readTrace(tracePathFor(cwd, env, `${id}`)))).toBe(true);
  }, 60_000);

  it("writes to HARNESS_TRACE_DIR when it is set", async () => {
    const cwd = workdir();
    const dir = join(tempDir("s04-traces-"), "elsewhere");
    const env = cleanEnv({ HARNESS_TRACE_DIR: dir });
    const { code, stdout } = await runHere(
      ["--offline", "--trace=here", "--cwd", cwd, "Read README.md and summarise it"],
      env,
    );
    expect(code).toBe(0);
    expect(sentValidHistories(readTrace(join(dir, "here.jsonl")))).toBe(true);
    expect(readdirSync(cwd)).toEqual(["README.md"]);
    expect(readdirSync(env.HARNESS_HOME ?? "?")).toEqual([]);
    expect(stdout).toContain("pnpm trace show here   ·   pnpm trace view here\n"); // the tracer reads it too
  }, 60_000);

  it("records nothing without --trace", async () => {
    const cwd = workdir();
    const env = cleanEnv();
    const { code, stdout } = await runHere(["--offline", "--cwd", cwd, "Read README.md and summarise it"], env);
    expect(code).toBe(0);
    expect(stdout).not.toContain("pnpm trace");
    expect(readdirSync(cwd)).toEqual(["README.md"]);
    expect(readdirSync(env.HARNESS_HOME ?? "?")).toEqual([]);
  }, 60_000);

  it("keeps traces where the model's tools never find them: a search after a traced run sees none", async () => {
    const cwd = workdir();
    mkdirSync(join(cwd, "src"));
    writeFileSync(join(cwd, "src", "app.ts"), "// TODO: handle errors\nexport const answer = 42;\n");
    const search = () => [reply([toolUse("grep", { pattern: "TODO" })]), textReply("One TODO, in src/app.ts.")];
    const model = new ScriptedModel({ script: [...search(), ...search()] });
    const server = await scriptedServer(model);
    const env = cleanEnv({ ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: server.url });
    const prompt = "Find the TODO comments in this repository";
    for (const id of ["first", "second"]) {
      const { code } = await runHere([`--trace=${id}`, "--cwd", cwd, prompt], env);
      expect(code).toBe(0);
    }
    // the first trace holds the word the search looks for, many times over...
    const first = readFileSync(tracePathFor(cwd, env, "first"), "utf8");
    expect(first.split("TODO").length).toBeGreaterThan(3);
    // ...and the second search found the one comment in the project, and nothing of the trace
    const searches = ["first", "second"].map(
      (id) => (readTrace(tracePathFor(cwd, env, id)).records[0] as IterationRecord).toolCalls[0],
    );
    for (const found of searches) {
      expect(found).toMatchObject({ name: "grep", isError: false });
      expect(found.result).toBe("src/app.ts:1: // TODO: handle errors");
    }
    expect(readdirSync(cwd).sort()).toEqual(["README.md", "src"]);
  }, 60_000);

  it("refuses an id that is not a file name, in one line, before any prompt runs", async () => {
    const { code, stderr, stdout } = await runHere(["--offline", "--trace=../up", "--cwd", workdir(), "hi"]);
    expect(code).toBe(1);
    expect(stdout).not.toContain("[turn 1]");
    expect(stderr.trimEnd().split("\n").at(-1)).toBe(
      's04: error: invalid trace id "../up": use letters, digits, . _ -',
    );
  }, 60_000);

  it("refuses an id written as a separate word, rather than take it into the prompt", async () => {
    const cwd = workdir();
    const { code, stderr, stdout } = await runHere([
      "--offline",
      "--trace",
      "demo",
      "--cwd",
      cwd,
      "What is in README.md?",
    ]);
    expect(code).toBe(1);
    expect(stdout).not.toContain("[turn 1]");
    expect(stderr.trimEnd().split("\n").at(-1)).toBe(
      's04: error: --trace takes its value joined with "=": write --trace=demo (or, if "demo" begins the prompt, put --trace after it)',
    );
    expect(existsSync(join(cwd, ".traces"))).toBe(false);
  }, 60_000);

  it("lists --trace in its help", async () => {
    const { code, stdout } = await runHere(["--help"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/--trace\[=ID\]\s+record every iteration \(read it with pnpm trace\)/);
  }, 60_000);

  it("appends every run of a REPL session to one file, never rewriting what is there", async () => {
    const cwd = workdir();
    const env = cleanEnv();
    const path = tracePathFor(cwd, env, "session");
    const child = start(["--offline", "--trace=session", "--cwd", cwd], env);
    child.stdin?.write("Read README.md and summarise it\n");
    await until("the first run's result is on disk", () =>
      completeLines(path).some((l) => l.includes('"type":"result"')),
    );
    const firstRun = readFileSync(path);

    child.stdin?.write("List all TypeScript files in this directory\nq\n");
    expect(await exited(child)).toBe(0);
    const whole = readFileSync(path);
    expect(whole.length).toBeGreaterThan(firstRun.length);
    expect(whole.subarray(0, firstRun.length).equals(firstRun)).toBe(true);

    const trace = readTrace(path);
    expect(trace.records.filter((r) => r.type === "result").map((r) => r.run)).toEqual([0, 1]);
    const secondRun = trace.records.find((r): r is IterationRecord => r.type === "iteration" && r.run === 1);
    // the history is kept between prompts: the second run's request extends the first run's
    expect(secondRun?.request.base).toBe((secondRun?.request.n ?? 0) - 1);
    const sent = requestOf(trace, secondRun?.request.n ?? 0);
    expect(sent?.messages[0]).toEqual({ role: "user", content: "Read README.md and summarise it" });
    expect(sent?.messages.at(-1)).toEqual({
      role: "user",
      content: "List all TypeScript files in this directory",
    });
    expect(child.output.stdout.match(/trace session → /g)).toHaveLength(2);
    expect(sentValidHistories(trace)).toBe(true);
  }, 60_000);

  it("leaves a readable trace when killed with SIGKILL mid-run", async () => {
    const model = new ScriptedModel({
      script: [
        reply([text("First a quick one."), toolUse("bash", { command: "echo first" })]),
        reply([text("Now a slow one."), toolUse("bash", { command: "sleep 30" })]),
        textReply("Never sent."),
      ],
    });
    const server = await scriptedServer(model);
    const cwd = workdir();
    const env = cleanEnv({ ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: server.url });
    const path = tracePathFor(cwd, env, "killed");
    const child = start(["--trace=killed", "--cwd", cwd, "Run two commands"], env);
    const sleeper = () => processes().find((p) => p.ppid === child.pid && /sleep 30/.test(p.args));
    await until("the first record is on disk and sleep 30 runs", () => completeLines(path).length >= 1 && !!sleeper());
    const { pgid } = sleeper()!;
    cleanups.push(() => killGroup(pgid));

    process.kill(-child.pid!, "SIGKILL");
    await exited(child);
    expect(child.signalCode).toBe("SIGKILL");

    // what was on disk stays readable: the first iteration, whole; no result
    const trace = readTrace(path);
    expect(trace.skippedLines).toBe(0);
    expect(trace.records.map((r) => r.type)).toEqual(["iteration"]);
    const [first] = trace.records as IterationRecord[];
    expect(first).toMatchObject({ traceId: "killed", run: 0, turn: 1 });
    expect(first.toolCalls).toMatchObject([{ name: "bash", result: "first\n[exit code 0]", isError: false }]);
    expect(summariseTrace(trace).stopReason).toBe("(running or killed)");
    expect(sentValidHistories(trace)).toBe(true);

    // a line torn by the kill is skipped and counted, and what came before still reads
    appendFileSync(path, '{"type":"iteration","traceId":"killed","run":0,"turn":2,"startedAt":"2026-');
    const torn = readTrace(path);
    expect(torn.records).toHaveLength(1);
    expect(torn.skippedLines).toBe(1);
    expect(formatShow(torn)).toContain("(1 unreadable line skipped: a run was cut mid-write)");

    // the command the killed harness left behind goes with its process group
    killGroup(pgid);
    await until("nothing is left of sleep 30", () => !processes().some((p) => p.pgid === pgid));
    expect(processes().filter((p) => p.pgid === pgid)).toEqual([]);
  }, 60_000);

  it("traces a call whose input nests 10,000 levels deep as an invalid_arguments result, and the run goes on", async () => {
    const deep = `{"command":"touch PWNED","x":${"[".repeat(10_000)}${"]".repeat(10_000)}}`;
    const model = new ScriptedModel({
      script: [reply([{ type: "tool_use", name: "bash", rawInput: deep }]), textReply("Done.")],
    });
    const server = await scriptedServer(model);
    const cwd = workdir();
    const env = cleanEnv({ ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: server.url });
    const { code, stdout, stderr } = await runHere(["--trace=deep", "--cwd", cwd, "Run it"], env);
    expect(stderr).not.toContain("error");
    expect(code).toBe(0);
    expect(stdout).toContain("Error [invalid_arguments]: the input nests deeper than 64 levels");
    expect(stdout).toContain("── final_answer · 2 turns · 1 tool call");
    const trace = readTrace(tracePathFor(cwd, env, "deep"));
    expect(trace.records.map((r) => r.type)).toEqual(["iteration", "iteration", "result"]);
    expect((trace.records[0] as IterationRecord).toolCalls[0]).toMatchObject({
      name: "bash",
      input: {},
      isError: true,
    });
    expect(sentValidHistories(trace)).toBe(true);
    expect(existsSync(join(cwd, "PWNED"))).toBe(false);
  }, 60_000);

  it("says in one line which trace a full disk stopped, and leaves it ending with a whole line", async () => {
    const model = new ScriptedModel({
      script: [reply([toolUse("read_file", { path: "README.md" })]), textReply("A small project.")],
    });
    const server = await scriptedServer(model);
    const cwd = workdir();
    const env = cleanEnv({ ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: server.url });
    const path = tracePathFor(cwd, env, "full");
    failWrites({ matches: (file) => file === path, room: 100 }); // the first record's first 100 bytes go in
    const { code, stderr } = await runHere(["--trace=full", "--cwd", cwd, "Read README.md"], env);
    expect(code).toBe(1);
    expect(stderr.trim().split("\n").at(-1)).toBe(
      `s04: error: the trace ${path} could not be written (no space left on the disk, ENOSPC): it holds every record before this one, whole`,
    );
    expect(readFileSync(path, "utf8")).toBe(""); // the 100 bytes of a torn line taken back
  }, 60_000);

  it("records the error when a model call fails, and still says where the trace is", async () => {
    const model = new ScriptedModel({
      script: [
        reply([toolUse("bash", { command: "echo ok" })]),
        { kind: "http_error", status: 400, message: "messages: something is wrong" },
      ],
    });
    const server = await scriptedServer(model);
    const cwd = workdir();
    const env = cleanEnv({ ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: server.url });
    const { code, stdout, stderr } = await runHere(["--trace=failed", "--cwd", cwd, "go"], env);
    expect(code).toBe(1);
    expect(stderr.trimEnd().split("\n").at(-1)).toMatch(/^s04: error: the API answered 400 .*something is wrong/);
    expect(stdout).toContain(`trace failed → ${tracePathFor(cwd, env, "failed")}`);
    const trace = readTrace(tracePathFor(cwd, env, "failed"));
    expect(trace.records.map((r) => r.type)).toEqual(["iteration", "error"]);
    expect(trace.records[1]).toMatchObject({
      type: "error",
      turn: 2,
      message: expect.stringMatching(/something is wrong/),
    });
    expect(summariseTrace(trace).stopReason).toBe("error");
    expect(sentValidHistories(trace)).toBe(true);
  }, 60_000);

  it("numbers the run after a failed one in a REPL as the next run, in the same trace", async () => {
    const model = new ScriptedModel({
      script: [{ kind: "http_error", status: 400, message: "messages: something is wrong" }, textReply("Back again.")],
    });
    const server = await scriptedServer(model);
    const cwd = workdir();
    const env = cleanEnv({ ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: server.url });
    const { code, stdout, stderr } = await runHere(["--trace=repl", "--cwd", cwd], env, "first\nsecond\n");
    expect(code).toBe(0);
    expect(stderr).toMatch(/s04: error: the API answered 400/);
    expect(stdout).toContain("Back again.");
    expect(stdout.match(/trace repl → /g)).toHaveLength(2);
    const trace = readTrace(tracePathFor(cwd, env, "repl"));
    expect(trace.records.map((r) => [r.type, r.run])).toEqual([
      ["error", 0],
      ["iteration", 1],
      ["result", 1],
    ]);
    expect(sentValidHistories(trace)).toBe(true);
  }, 60_000);

  it("never writes the API key, even when a prompt and a tool's output hold it", async () => {
    // a fake key, split so no secret scanner takes it for a real one
    const key = `sk-ant-${"api03-Secret_Key-0123456789abcdefABCDEF"}`;
    const cwd = workdir();
    writeFileSync(join(cwd, "leak.txt"), `the key is ${key}\n`);
    const model = new ScriptedModel({
      script: [reply([toolUse("read_file", { path: "leak.txt" })]), textReply(`Found ${key}.`)],
    });
    const server = await scriptedServer(model);
    const env = cleanEnv({ ANTHROPIC_API_KEY: key, ANTHROPIC_BASE_URL: server.url });
    const { code } = await runHere(["--trace=secret", "--cwd", cwd, `Is ${key} in leak.txt?`], env);
    expect(code).toBe(0);
    expect(JSON.stringify(model.requests[0].headers)).toContain(key); // it was sent, in an auth header...
    const raw = readFileSync(tracePathFor(cwd, env, "secret"));
    expect(raw.includes(key)).toBe(false); // ...and is nowhere in the trace
    expect(raw.includes("Secret_Key")).toBe(false);
    expect(raw.includes("[REDACTED]")).toBe(true);
    expect(sentValidHistories(readTrace(tracePathFor(cwd, env, "secret")))).toBe(true);
  }, 60_000);
});

describe("pnpm s04 --trace, Ctrl-C in the REPL", () => {
  function count(haystack: string, needle: string): number {
    return haystack.split(needle).length - 1;
  }

  /**
   * Start a traced REPL against `first`, send a prompt, press Ctrl-C once `ready` holds; check that
   * the prompt comes back with the trace readable and run 0 ending `aborted`, that a next prompt is
   * answered (the server rejects an invalid history) and appended to the same file without
   * rewriting a byte of it, and that a second Ctrl-C at the prompt exits 130.
   */
  async function interruptThenContinue(
    first: ScriptStep,
    ready: (output: { stdout: string }, cwd: string) => boolean,
  ): Promise<{ interrupted: LoadedTrace; trace: LoadedTrace; cwd: string }> {
    const model = new ScriptedModel({ script: [first, textReply("Back again.")] });
    const server = await scriptedServer(model);
    const cwd = workdir();
    const env = cleanEnv({ ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: server.url });
    const path = tracePathFor(cwd, env, "ctrl-c");
    const child = start(["--trace=ctrl-c", "--cwd", cwd], env);
    await until("the prompt is shown", () => child.output.stdout.includes("s04 >> "));
    child.stdin?.write("first prompt\n");
    await until("the run is at the phase to interrupt", () => model.requests.length === 1 && ready(child.output, cwd));

    child.kill("SIGINT");
    await until("the prompt is back", () => count(child.output.stdout, "s04 >> ") === 2);
    expect(child.output.stdout).toContain("(interrupted; press Ctrl-C again to exit)");
    expect(child.output.stdout).toContain(`trace ctrl-c → ${path}`);
    const bytesAfterInterrupt = readFileSync(path);
    const interrupted = readTrace(path);
    expect(interrupted.skippedLines).toBe(0);
    expect(interrupted.records.at(-1)).toMatchObject({ type: "result", run: 0, result: { stopReason: "aborted" } });

    child.stdin?.write("second prompt\n");
    await until("the second run is answered", () => count(child.output.stdout, "s04 >> ") === 3);
    expect(child.output.stdout).toContain("Back again.");
    expect(model.requests).toHaveLength(2);
    expect(historyProblems(model.requests[1].body.messages)).toEqual([]);

    const whole = readFileSync(path);
    expect(whole.subarray(0, bytesAfterInterrupt.length).equals(bytesAfterInterrupt)).toBe(true);
    const trace = readTrace(path);
    expect(trace.skippedLines).toBe(0);
    expect(trace.records.slice(interrupted.records.length).map((r) => [r.type, r.run])).toEqual([
      ["iteration", 1],
      ["result", 1],
    ]);
    expect(trace.records.at(-1)).toMatchObject({ result: { stopReason: "final_answer", finalText: "Back again." } });
    expect(sentValidHistories(trace)).toBe(true);

    child.kill("SIGINT");
    expect(await exited(child)).toBe(130);
    expect(child.output.stderr).not.toContain("error");
    return { interrupted, trace, cwd };
  }

  it("stops a run that waits for the model; the trace reads back and the next prompt appends to it", async () => {
    const { interrupted } = await interruptThenContinue({ kind: "hang" }, () => true);
    // no iteration completed: the run is its aborted result alone
    expect(interrupted.records.map((r) => r.type)).toEqual(["result"]);
    expect(interrupted.records[0]).toMatchObject({ result: { turns: 1, toolCalls: 0 } });
  }, 60_000);

  it("stops a run mid-stream; the trace reads back and the next prompt appends to it", async () => {
    const words = `Here is a long answer that streams in slowly. ${"More words arrive a few at a time. ".repeat(25)}The end.`;
    const { interrupted } = await interruptThenContinue(reply([text(words)], { eventDelayMs: 100 }), (output) =>
      output.stdout.includes("Here is a long answer"),
    );
    // the half-streamed turn is dropped, from the history and from the trace
    expect(interrupted.records.map((r) => r.type)).toEqual(["result"]);
  }, 60_000);

  it("stops a running command, killing its group; the trace reads back and the next prompt appends to it", async () => {
    const pidFile = (cwd: string) => join(cwd, "pid");
    const sleeper = reply([toolUse("bash", { command: "echo $$ > pid; sleep 30" }, "toolu_sleep")]);
    const { interrupted, trace, cwd } = await interruptThenContinue(
      sleeper,
      (_, dir) => existsSync(pidFile(dir)) && readFileSync(pidFile(dir), "utf8").endsWith("\n"),
    );
    const group = Number(readFileSync(pidFile(cwd), "utf8"));
    await until("nothing is left of the command's group", () => !processes().some((p) => p.pgid === group));

    // the interrupted iteration is on disk whole, its call answered as interrupted
    expect(interrupted.records.map((r) => r.type)).toEqual(["iteration", "result"]);
    const [iteration] = interrupted.records as IterationRecord[];
    expect(iteration.toolCalls).toMatchObject([{ id: "toolu_sleep", name: "bash", isError: true }]);
    expect(iteration.toolCalls[0].result).toContain("[interrupted; the process group was killed]");
    // and the next run's request carries that answer, then the new prompt, joined to it in one message
    const next = trace.records.find((r): r is IterationRecord => r.type === "iteration" && r.run === 1);
    expect(next?.request).toMatchObject({ base: iteration.request.n, keep: 1 });
    const sent = requestOf(trace, next?.request.n ?? 0);
    expect(sent?.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(sent?.messages[2].content).toEqual([
      expect.objectContaining({ type: "tool_result", tool_use_id: "toolu_sleep", is_error: true }),
      { type: "text", text: "second prompt" },
    ]);
  }, 60_000);
});
