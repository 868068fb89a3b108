/**
 * The s01 CLI, run as a reader runs it: `node --import tsx s01-agent-loop/src/main.ts ...` from
 * the repository root, in a child process, with a fresh temporary directory to work in. Offline
 * runs use the built-in scripted model; runs that need a particular reply or fault point the
 * child at a ScriptedModel served on 127.0.0.1.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  DEFAULT_BASH_TIMEOUT_SECONDS,
  DEFAULT_MAX_TURNS,
  reply,
  ScriptedModel,
  type ScriptStep,
  startScriptedServer,
  text,
  textReply,
} from "@harness/shared";
import { afterAll, describe, expect, it } from "vitest";

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const MAIN = join(REPO_ROOT, "s01-agent-loop", "src", "main.ts");
const OFFLINE_NOTICE = /Using the offline scripted model/g;

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
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
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? "");
  });
}

/** Serve a scripted model on 127.0.0.1 for one child run, and return what it was asked. */
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

function lastLine(output: string): string {
  return output.trimEnd().split("\n").at(-1) ?? "";
}

function lines(output: string): string[] {
  return output.split("\n").filter((line) => line.trim() !== "");
}

describe.concurrent("s01 CLI", { timeout: 120_000 }, () => {
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

  it("lists the TypeScript files it finds, offline, skipping node_modules", async () => {
    const dir = workDir();
    mkdirSync(join(dir, "src"));
    mkdirSync(join(dir, "node_modules"));
    for (const file of ["index.ts", "src/view.tsx", "src/loop.ts", "node_modules/dep.ts", "notes.md"]) {
      writeFileSync(join(dir, file), "export {};\n");
    }
    const run = await runCli(["--offline", "--json", "--cwd", dir, "List all TypeScript files in this directory"]);
    expect(run.code).toBe(0);
    const { finalText } = JSON.parse(lastLine(run.stdout));
    expect(finalText).toContain("3 TypeScript files");
    for (const file of ["index.ts", "src/view.tsx", "src/loop.ts"]) expect(finalText).toContain(`- ${file}`);
    expect(finalText).not.toContain("dep.ts");
    expect(finalText).not.toContain("notes.md");
  });

  it("says a directory that is not a git repository has no current branch", async () => {
    const dir = workDir();
    const run = await runCli(["--offline", "--cwd", dir, "What is the current git branch?"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("not a git repository");
  });

  it("tells the current git branch, offline, and prints the AgentLoopResult as the last line with --json", async () => {
    const dir = workDir();
    expect(spawnSync("git", ["init", "-q", "-b", "trunk"], { cwd: dir }).status).toBe(0);
    const run = await runCli(["--offline", "--json", "--cwd", dir, "What is the current git branch?"]);
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
    const run = await runCli([
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
      runCli(["--json", "--cwd", dir, "Write a long essay"], { env }),
    );
    expect(run.code).toBe(3);
    expect(run.stderr).toBe(""); // a key is set: no offline notice
    expect(run.stdout).toContain("The answer begins");
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
      runCli(["--cwd", dir, "hello"], { env }),
    );
    expect(run.code).toBe(1);
    expect(model.requests).toHaveLength(1); // a 401 is not retried
    expect(lines(run.stderr)).toEqual([
      "s01: error: the API answered 401 authentication_error: invalid x-api-key; " +
        "the key was rejected (ANTHROPIC_API_KEY from the shell)",
    ]);
    expect(run.stderr).not.toMatch(/^\s+at /m);
  });

  it("prints the stack of an API error when DEBUG is set", async () => {
    const dir = workDir();
    const { run } = await withServer([{ kind: "http_error", status: 401 }], (env) =>
      runCli(["--cwd", dir, "hello"], { env: { ...env, DEBUG: "1" } }),
    );
    expect(run.code).toBe(1);
    expect(lines(run.stderr)[0]).toMatch(/the key was rejected/);
    expect(run.stderr).toMatch(/^\s+at /m);
  });

  it("exits 1 on bad usage (--max-turns 0) with one line on stderr", async () => {
    const run = await runCli(["--max-turns", "0", "hello"], { env: { INIT_CWD: workDir() } });
    expect(run.code).toBe(1);
    expect(lines(run.stderr)).toEqual(["s01: error: --max-turns expects a whole number of at least 1, got 0"]);
    expect(run.stdout).toBe("");
  });

  it("prints the options and exit codes with --help and exits 0", async () => {
    const run = await runCli(["--help"]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("");
    expect(run.stdout).toContain("usage: pnpm s01 [options] [prompt]");
    for (const option of ["--max-turns N", "--json", "--offline", "--model ID", "--cwd DIR", "--bash-timeout S"]) {
      expect(run.stdout).toContain(option);
    }
    expect(run.stdout).toContain(`turn budget (default ${DEFAULT_MAX_TURNS})`);
    expect(run.stdout).toContain(`(default ${DEFAULT_BASH_TIMEOUT_SECONDS})`);
    expect(run.stdout).toContain("0 final_answer, 2 max_turns, 3 max_tokens, 1 error, 130 interrupted");
  });

  it("keeps the history between prompts in the REPL and quits on q", async () => {
    const dir = workDir();
    const { run, model } = await withServer([textReply("first answer"), textReply("second answer")], (env) =>
      runCli(["--cwd", dir], { env, input: "first prompt\nsecond prompt\nq\nthird prompt\n" }),
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
    const run = await runCli(["--offline", "--cwd", workDir()], { input: "What is the current git branch?\n" });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("not a git repository");
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
