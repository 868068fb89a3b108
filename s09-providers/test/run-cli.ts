/**
 * The s09 command line, run as a learner runs it: `node --import tsx s09-providers/src/main.ts` in
 * a child process with no terminal, its environment cleared of every provider's variables.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { REPO_ROOT } from "@harness/shared";
import { afterEach } from "vitest";

export const MAIN = join(REPO_ROOT, "s09-providers", "src", "main.ts");

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A fresh directory holding `files` (path → text), a git repository on `branch` when given. */
export function project(files: Record<string, string> = {}, branch?: string): string {
  const dir = mkdtempSync(join(tmpdir(), "s09-cli-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  if (branch) execFileSync("git", ["init", "-q", "-b", branch, dir]);
  return dir;
}

/** The environment without any provider's credentials, settings or colours; a home of its own. */
export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(env)) {
    if (/^(ANTHROPIC_|OPENAI_|HARNESS_)/.test(name) || ["INIT_CWD", "DEBUG", "MODEL_ID"].includes(name))
      delete env[name];
  }
  const home = mkdtempSync(join(tmpdir(), "s09-home-"));
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
