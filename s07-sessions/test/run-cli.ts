/**
 * The s07 command line, run as a learner runs it: `node --import tsx s07-sessions/src/main.ts` in
 * a child process (its own process group, so a test can kill it and what it started), with a home
 * of its own; and the transcripts it leaves, found and read.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { PassThrough } from "node:stream";
import { type CliIo, REPO_ROOT } from "@harness/shared";
import { afterEach } from "vitest";
import { sessionsDir } from "../src/sessions-dir.ts";

export const MAIN = join(REPO_ROOT, "s07-sessions", "src", "main.ts");

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Run `cleanup` after the current test. */
export function afterThis(cleanup: () => unknown): void {
  cleanups.push(cleanup);
}

/** A fresh directory (its real path) holding `files`, a git repository on branch `main` when `git` is set. */
export function project(files: Record<string, string> = {}, { git = false } = {}): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "s07-cli-")));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  if (git) execFileSync("git", ["init", "-q", "-b", "main", dir]);
  return dir;
}

/** The environment without the shell's credentials, settings and colours; a harness home of its own. */
export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(env)) {
    if (/^(ANTHROPIC_|HARNESS_)/.test(name) || name === "INIT_CWD" || name === "DEBUG" || name === "MODEL_ID") {
      delete env[name];
    }
  }
  const home = realpathSync(mkdtempSync(join(tmpdir(), "s07-home-")));
  cleanups.push(() => rmSync(home, { recursive: true, force: true }));
  return { ...env, NO_COLOR: "1", HARNESS_HOME: home, ...extra };
}

/** A CLI process that is running. */
export interface Cli {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit status (`null` when a signal ended it). */
  exited: Promise<number | null>;
}

/** Start the CLI in a child process with no terminal; its input stays open until `child.stdin.end()`. */
export function startCli(args: string[], env: NodeJS.ProcessEnv): Cli {
  const child = spawn(process.execPath, ["--import", "tsx", MAIN, ...args], {
    cwd: REPO_ROOT,
    env,
    detached: true,
    stdio: ["pipe", "pipe", "pipe"],
  });
  cleanups.push(() => killGroup(child.pid));
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

/** Run the CLI to the end, its input closed. */
export async function runCli(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const cli = startCli(args, env);
  cli.child.stdin?.end();
  const code = await cli.exited;
  return { code, stdout: cli.stdout(), stderr: cli.stderr() };
}

/** Kill a whole process group, if it still runs. */
export function killGroup(pgid: number | undefined): void {
  try {
    if (pgid) process.kill(-pgid, "SIGKILL");
  } catch {} // already gone
}

/** The transcripts of the project in `cwd`, as file names, sorted. */
export function transcripts(cwd: string, env: NodeJS.ProcessEnv): string[] {
  try {
    return readdirSync(sessionsDir(cwd, env)).sort();
  } catch {
    return [];
  }
}

/** The path of the only transcript of `cwd`'s project (fails when there is not exactly one). */
export function onlyTranscript(cwd: string, env: NodeJS.ProcessEnv): string {
  const files = transcripts(cwd, env).filter((name) => name.endsWith(".jsonl"));
  if (files.length !== 1) throw new Error(`expected one transcript, found ${files.join(", ") || "none"}`);
  return join(sessionsDir(cwd, env), files[0]);
}

/** Resolve once `condition` holds (checked every 20 ms, for at most twenty seconds). */
export async function until(what: string, condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition(); waited += 20) {
    if (waited > 20_000) throw new Error(`waited 20 s for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The processes running now (zombies left out). */
export function processes(): Array<{ pid: number; ppid: number; pgid: number; args: string }> {
  const out = execFileSync("ps", ["-A", "-o", "pid=,ppid=,pgid=,stat=,args="], { encoding: "utf8" });
  return out
    .split("\n")
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null && !m[4].startsWith("Z"))
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), pgid: Number(m[3]), args: m[5] }));
}

/** The command `cli` started through its bash tool whose line matches `pattern`, once it runs; it is killed after the test. */
export async function toolProcess(cli: Cli, pattern: RegExp): Promise<number> {
  let found: { pgid: number } | undefined;
  await until(`${pattern} to run`, () => {
    found = processes().find((p) => p.ppid === cli.child.pid && pattern.test(p.args));
    return found !== undefined;
  });
  const pgid = (found as { pgid: number }).pgid;
  cleanups.push(() => killGroup(pgid));
  return pgid;
}

/** A terminal to type into, for `main` in this process: stdin is a TTY, so the CLI asks its questions there. */
export function fakeTerminal(env: NodeJS.ProcessEnv) {
  const stdin = Object.assign(new PassThrough(), { isTTY: true });
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  let err = "";
  stdout.on("data", (chunk) => {
    out += chunk;
  });
  stderr.on("data", (chunk) => {
    err += chunk;
  });
  const io: CliIo = { stdin, stdout, stderr, env: { NO_COLOR: "1", ...env }, exit: () => {} };
  return { io, out: () => out, err: () => err, type: (keys: string) => stdin.write(keys) };
}
