/**
 * The s01 CLI, run as a reader runs it: `node --import tsx s01-agent-loop/src/main.ts ...` from
 * the repository root, in a child process, with a fresh temporary directory to work in; or, where
 * no process boundary is the point (no signal, no process id), its exported `main` run in the
 * test's process on the same environment (testkit's runInProcess). Offline runs use the built-in scripted
 * model; runs that need a particular reply or fault point the CLI at a ScriptedModel served on
 * 127.0.0.1.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_MODEL, DEFAULT_MODEL_TIMEOUT_SECONDS } from "@harness/cli";
import {
  reply,
  ScriptedModel,
  type ScriptStep,
  startScriptedServer,
  text,
  textReply,
  toolUse,
} from "@harness/scripted-model";
import { DEFAULT_BASH_TIMEOUT_SECONDS, DEFAULT_MAX_TURNS } from "@harness/shared";
import { runInProcess } from "@harness/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../src/main.ts";

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const MAIN = join(REPO_ROOT, "s01-agent-loop", "src", "main.ts");
const OFFLINE_NOTICE = /Using the offline scripted model/g;

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The harness's process id. */
  pid: number | undefined;
}

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A fresh directory, outside any git repository. */
function workDir(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "s01-cli-")));
  dirs.push(dir);
  return dir;
}

/**
 * The environment of a child run: this process's, without any key, endpoint, model, DEBUG or
 * git variable, so a run is offline unless a test says otherwise; git looks no higher than the
 * temporary directories.
 */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^(ANTHROPIC_|GIT_)/.test(name) || ["MODEL_ID", "DEBUG", "INIT_CWD"].includes(name)) continue;
    env[name] = value;
  }
  return { ...env, GIT_CEILING_DIRECTORIES: tmpdir(), NO_COLOR: "1", ...extra };
}

/** Run the CLI to its end; `input` is written to its stdin, which is then closed. */
function runCli(args: string[], options: { env?: Record<string, string>; input?: string } = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", MAIN, ...args], {
      cwd: REPO_ROOT,
      env: childEnv(options.env ?? {}),
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr, pid: child.pid }));
    child.stdin.end(options.input ?? "");
  });
}

/** Run the CLI to its end in this process, on the environment a child run gets; no process id. */
async function runHere(args: string[], options: { env?: Record<string, string>; input?: string } = {}) {
  const run = await runInProcess(main, args, childEnv(options.env ?? {}), options.input);
  return { ...run, pid: undefined };
}

/** Serve a scripted model on 127.0.0.1 for one run, and return what it was asked. */
async function withServer(script: ScriptStep[], body: (env: Record<string, string>) => Promise<CliRun>) {
  const model = new ScriptedModel({ script });
  const server = await startScriptedServer(model);
  try {
    const run = await body({ ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: server.url });
    return { run, model };
  } finally {
    await server.close();
  }
}

/**
 * A plain HTTP server on 127.0.0.1 for one run, answering every request with `handler`
 * (an endpoint that is not the Messages API); counts the requests.
 */
async function withEndpoint(
  handler: (res: ServerResponse) => void,
  body: (env: Record<string, string>, url: string) => Promise<CliRun>,
) {
  let requests = 0;
  const server = createServer((req: IncomingMessage, res) => {
    requests++;
    req.resume();
    handler(res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const run = await body({ ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: url }, url);
    return { run, requests };
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

/** The line every run with a key starts with on stderr. */
function startLine(url: string): string {
  return `Using ${url} (ANTHROPIC_BASE_URL from the shell), model ${DEFAULT_MODEL}, with ANTHROPIC_API_KEY from the shell.`;
}

function lastLine(output: string): string {
  return output.trimEnd().split("\n").at(-1) ?? "";
}

function lines(output: string): string[] {
  return output.split("\n").filter((line) => line.trim() !== "");
}

describe.concurrent("s01 CLI in a child process", { timeout: 120_000 }, () => {
  it("creates hello.js and runs it, offline, in the directory pnpm was started from", async () => {
    const dir = workDir();
    const run = await runCli(["--offline", 'Create a file called hello.js that prints "Hello, World!"'], {
      env: { INIT_CWD: dir },
    });
    expect(run.stderr.match(OFFLINE_NOTICE)).toHaveLength(1);
    expect(run.code).toBe(0);
    expect(existsSync(join(dir, "hello.js"))).toBe(true);
    expect(run.stdout).toContain("node hello.js");
    expect(run.stdout).toContain("Hello, World!");
    const again = spawnSync(process.execPath, ["hello.js"], { cwd: dir, encoding: "utf8" });
    expect(again.stdout).toBe("Hello, World!\n");
  });

  it("gives up on an endpoint that never answers after --model-timeout, without retrying", async () => {
    const { run, requests } = await withEndpoint(
      () => {}, // accepts the connection, never answers
      (env) => runCli(["--model-timeout", "2", "--cwd", workDir(), "hello"], { env }),
    );
    expect(run.code).toBe(1);
    const url = lines(run.stderr)[0].split(" ")[1];
    expect(lines(run.stderr)).toEqual([startLine(url), `s01: error: no response from ${url}/v1/messages within 2 s`]);
    expect(requests).toBe(1); // a timeout is not sent again
  });

  it('names why an endpoint cannot be reached: fetch refuses port 9 ("bad port")', async () => {
    const run = await runCli(["--cwd", workDir(), "hello"], {
      env: { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: "http://127.0.0.1:9" },
    });
    expect(run.code).toBe(1);
    expect(lines(run.stderr)[1]).toBe(
      's01: error: could not reach http://127.0.0.1:9: fetch refuses port 9 ("bad port" in the fetch standard) (after retries)',
    );
  });

  it("keeps the key out of a command's environment, but a command can read it from the harness's", async () => {
    // what the README's safety note says: the key is not in bash's environment, yet the harness
    // (bash's parent) has it in its own, which any process of the same user can read
    const key = ["sk-ant", "test", "proc", "environ"].join("-");
    const parentEnv =
      process.platform === "linux"
        ? "tr '\\0' '\\n' < /proc/$PPID/environ"
        : "ps eww -o command= -p $PPID | tr ' ' '\\n'";
    const command = `echo "harness pid $PPID"; echo "own: $(env | grep -c '^ANTHROPIC_API_KEY=')"; ${parentEnv} | grep '^ANTHROPIC_API_KEY='`;
    const { run, model } = await withServer([reply([toolUse("bash", { command })]), textReply("done")], (env) =>
      runCli(["--cwd", workDir(), "show me"], { env: { ...env, ANTHROPIC_API_KEY: key } }),
    );
    expect(run.code).toBe(0);
    const results = model.requests[1].body.messages.at(-1)?.content as { type: string; content: string }[];
    const output = results[0].content;
    expect(output).toContain(`harness pid ${run.pid}`);
    expect(output).toContain("own: 0");
    expect(output).toContain(`ANTHROPIC_API_KEY=${key}`);
  });

  it("exits 130 when interrupted", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", MAIN, "--offline", "--cwd", workDir()], {
      cwd: REPO_ROOT,
      env: childEnv({}),
      stdio: ["pipe", "pipe", "pipe"],
    });
    // wait for the REPL's prompt: by then the Ctrl-C handler is in place
    await new Promise<void>((resolve) => {
      let stdout = "";
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk;
        if (stdout.includes("s01 >> ")) resolve();
      });
    });
    const code = new Promise((resolve) => child.on("close", (c) => resolve(c)));
    child.kill("SIGINT");
    expect(await code).toBe(130);
  });
});

describe("s01 CLI in the test's process", { timeout: 120_000 }, () => {
  it("lists the TypeScript files it finds, offline, skipping node_modules", async () => {
    const dir = workDir();
    mkdirSync(join(dir, "src"));
    mkdirSync(join(dir, "node_modules"));
    for (const file of ["index.ts", "src/view.tsx", "src/loop.ts", "node_modules/dep.ts", "notes.md"]) {
      writeFileSync(join(dir, file), "export {};\n");
    }
    const run = await runHere(["--offline", "--json", "--cwd", dir, "List all TypeScript files in this directory"]);
    expect(run.code).toBe(0);
    const { finalText } = JSON.parse(lastLine(run.stdout));
    expect(finalText).toContain("3 TypeScript files");
    for (const file of ["index.ts", "src/view.tsx", "src/loop.ts"]) expect(finalText).toContain(`- ${file}`);
    expect(finalText).not.toContain("dep.ts");
    expect(finalText).not.toContain("notes.md");
  });

  it("says a directory that is not a git repository has no current branch", async () => {
    const dir = workDir();
    const run = await runHere(["--offline", "--cwd", dir, "What is the current git branch?"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("not a git repository");
  });

  it("tells the current git branch, offline, and prints the AgentLoopResult as the last line with --json", async () => {
    const dir = workDir();
    expect(spawnSync("git", ["init", "-q", "-b", "trunk"], { cwd: dir }).status).toBe(0);
    const run = await runHere(["--offline", "--json", "--cwd", dir, "What is the current git branch?"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("git branch --show-current");
    expect(run.stdout).toContain("The current branch is trunk.");
    const result = JSON.parse(lastLine(run.stdout));
    expect(Object.keys(result).sort()).toEqual(
      ["finalText", "providerStopReason", "stopReason", "toolCalls", "turns", "usage"].sort(),
    );
    expect(result).toEqual({
      stopReason: "final_answer",
      turns: 2,
      toolCalls: 1,
      finalText: "The current branch is trunk.",
      providerStopReason: "end_turn",
      usage: { inputTokens: expect.any(Number), outputTokens: expect.any(Number) },
    });
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(result.usage.outputTokens).toBeGreaterThan(0);
  });

  it("exits 2 when the turn budget is spent (--max-turns 1)", async () => {
    const dir = workDir();
    const run = await runHere([
      "--offline",
      "--json",
      "--max-turns",
      "1",
      "--cwd",
      dir,
      "What is the current git branch?",
    ]);
    expect(run.code).toBe(2);
    expect(JSON.parse(lastLine(run.stdout))).toMatchObject({ stopReason: "max_turns", turns: 1, toolCalls: 1 });
  });

  it("exits 3 on max_tokens, keeping the partial text", async () => {
    const dir = workDir();
    const { run, model } = await withServer([reply([text("The answer begins")], { stopReason: "max_tokens" })], (env) =>
      runHere(["--json", "--cwd", dir, "Write a long essay"], { env }),
    );
    expect(run.code).toBe(3);
    // a key is set: one line says where the run goes and with which credential, never its value
    expect(run.stderr).toMatch(/^Using http:\/\/127\.0\.0\.1:\d+ .* with ANTHROPIC_API_KEY from the shell\.\n$/);
    expect(run.stderr).not.toContain("test-key");
    expect(run.stdout).toContain("The answer begins");
    // a provider's token counts are its own: no "estimated" label
    expect(run.stdout).toMatch(/── max_tokens · 1 turn · 0 tool calls · \d+ in \/ \d+ out tokens\n/);
    expect(JSON.parse(lastLine(run.stdout))).toMatchObject({
      stopReason: "max_tokens",
      finalText: "The answer begins",
      providerStopReason: "max_tokens",
    });
    expect(model.requests).toHaveLength(1);
    const { headers } = model.requests[0];
    expect(headers["x-api-key"] ?? headers.authorization).toContain("test-key");
  });

  it("exits 1 on a rejected key with one line on stderr naming where the key was read from", async () => {
    const dir = workDir();
    const { run, model } = await withServer([{ kind: "http_error", status: 401 }], (env) =>
      runHere(["--cwd", dir, "hello"], { env }),
    );
    expect(run.code).toBe(1);
    expect(model.requests).toHaveLength(1); // a 401 is not retried
    expect(lines(run.stderr)).toEqual([
      expect.stringMatching(/^Using http:\/\/127\.0\.0\.1:\d+ /),
      "s01: error: the API answered 401 authentication_error: invalid x-api-key; " +
        "the key was rejected (ANTHROPIC_API_KEY from the shell)",
    ]);
    expect(run.stderr).not.toMatch(/^\s+at /m);
  });

  it("prints the stack of an API error when DEBUG is set", async () => {
    const dir = workDir();
    const { run } = await withServer([{ kind: "http_error", status: 401 }], (env) =>
      runHere(["--cwd", dir, "hello"], { env: { ...env, DEBUG: "1" } }),
    );
    expect(run.code).toBe(1);
    expect(lines(run.stderr)[1]).toMatch(/the key was rejected/);
    expect(run.stderr).toMatch(/^\s+at /m);
  });

  it("exits 1 when the endpoint answers 200 with an HTML page, naming it and what came back", async () => {
    const page = "<!doctype html>\n<html><head><title>Proxy login</title></head></html>";
    const { run, requests } = await withEndpoint(
      (res) => res.writeHead(200, { "content-type": "text/html" }).end(page),
      (env) => runHere(["--cwd", workDir(), "hello"], { env }),
    );
    expect(run.code).toBe(1);
    const url = lines(run.stderr)[0].split(" ")[1];
    expect(lines(run.stderr)).toEqual([
      startLine(url),
      `s01: error: ${url}/v1/messages answered 200 text/html, not a Messages API response: ` +
        '"<!doctype html> <html><head><title>Proxy login</title></head></html>"',
    ]);
    expect(run.stdout).not.toContain("final_answer");
    expect(requests).toBe(1);
  });

  it("labels the offline token counts as the scripted model's estimates", async () => {
    const run = await runHere(["--offline", "--cwd", workDir(), "What is the current git branch?"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /── final_answer · 2 turns · 1 tool call · ~\d+ in \/ ~\d+ out tokens \(estimated by the scripted model\)\n/,
    );
  });

  it("exits 1 on bad usage (--max-turns 0) with one line on stderr", async () => {
    const run = await runHere(["--max-turns", "0", "hello"], { env: { INIT_CWD: workDir() } });
    expect(run.code).toBe(1);
    expect(lines(run.stderr)).toEqual(["s01: error: --max-turns expects a whole number of at least 1, got 0"]);
    expect(run.stdout).toBe("");
  });

  it("prints the options and exit codes with --help and exits 0", async () => {
    const run = await runHere(["--help"]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("");
    expect(run.stdout).toContain("usage: pnpm s01 [options] [prompt]");
    const options = [
      "--max-turns N",
      "--json",
      "--offline",
      "--model ID",
      "--cwd DIR",
      "--bash-timeout S",
      "--model-timeout S",
    ];
    for (const option of options) {
      expect(run.stdout).toContain(option);
    }
    expect(run.stdout).toContain(`turn budget (default ${DEFAULT_MAX_TURNS})`);
    expect(run.stdout).toContain(`(default ${DEFAULT_BASH_TIMEOUT_SECONDS})`);
    expect(run.stdout).toContain(`default ${DEFAULT_MODEL_TIMEOUT_SECONDS})`);
    expect(run.stdout).toContain("0 final_answer, 2 max_turns, 3 max_tokens, 1 error, 130 interrupted");
  });

  it("keeps the history between prompts in the REPL and quits on q", async () => {
    const dir = workDir();
    const { run, model } = await withServer([textReply("first answer"), textReply("second answer")], (env) =>
      runHere(["--cwd", dir], { env, input: "first prompt\nsecond prompt\nq\nthird prompt\n" }),
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("s01 >> ");
    expect(run.stdout).toContain("first answer");
    expect(run.stdout).toContain("second answer");
    expect(model.requests).toHaveLength(2); // nothing after q
    expect(model.requests[1].body.messages).toEqual([
      { role: "user", content: "first prompt" },
      { role: "assistant", content: [{ type: "text", text: "first answer" }] },
      { role: "user", content: "second prompt" },
    ]);
  });

  it("quits the REPL at the end of input (Ctrl-D)", async () => {
    const run = await runHere(["--offline", "--cwd", workDir()], { input: "What is the current git branch?\n" });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("not a git repository");
  });
});
