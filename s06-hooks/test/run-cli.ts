/**
 * The s06 command line, run as a learner runs it: `node --import tsx s06-hooks/src/main.ts`
 * in a child process with no terminal, or in this process on a fake terminal (to answer questions).
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { PassThrough } from "node:stream";
import { type CliIo, REPO_ROOT } from "@harness/shared";
import { afterEach } from "vitest";

export const MAIN = join(REPO_ROOT, "s06-hooks", "src", "main.ts");

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A fresh directory holding `files` (path → text), a git repository when `git` is set. */
export function project(files: Record<string, string> = {}, { git = false } = {}): string {
  const dir = mkdtempSync(join(tmpdir(), "s06-cli-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  if (git) execFileSync("git", ["init", "-q", dir]);
  return dir;
}

/** The environment without the shell's credentials, settings and colours; a home of its own. */
export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(env)) {
    if (/^(ANTHROPIC_|HARNESS_)/.test(name) || name === "INIT_CWD" || name === "DEBUG" || name === "MODEL_ID") {
      delete env[name];
    }
  }
  const home = mkdtempSync(join(tmpdir(), "s06-home-"));
  cleanups.push(() => rmSync(home, { recursive: true, force: true }));
  return { ...env, NO_COLOR: "1", HARNESS_HOME: home, ...extra };
}

/** Run the CLI to the end in a child process, its input closed: no terminal to ask on. */
export async function runCli(
  args: string[],
  env: NodeJS.ProcessEnv = cleanEnv(),
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", MAIN, ...args], {
    cwd: REPO_ROOT,
    env,
    detached: true,
    stdio: ["pipe", "pipe", "pipe"],
  });
  cleanups.push(() => {
    try {
      if (child.pid) process.kill(-child.pid, "SIGKILL");
    } catch {} // already gone
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  child.stdin?.end();
  const code = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
  return { code, stdout, stderr };
}

/** A terminal to type into: stdin is a TTY, so the CLI asks its questions there. */
export function fakeTerminal(env: NodeJS.ProcessEnv = {}) {
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
  return {
    io,
    out: () => out,
    err: () => err,
    /** Type keys, as a user would (a line ends with \r). */
    type: (keys: string) => stdin.write(keys),
    end: () => stdin.end(),
  };
}

/** Resolve once `condition` holds (checked every few milliseconds, for at most twenty seconds). */
export async function until(what: string, condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition(); waited += 10) {
    if (waited > 20_000) throw new Error(`waited 20 s for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
