/**
 * s09's command line run in this process (testkit's runInProcess): `main(argv, io)` on piped input
 * (no terminal), an environment of the test's own (no provider's variables unless given), a home
 * of its own, and fresh project directories, each removed after its test.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { cleanUpAfter, runInProcess } from "@harness/testkit";
import { main } from "../src/main.ts";

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanUpAfter(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A fresh directory holding `files` (path → text), a git repository on `branch` when given. */
export function project(files: Record<string, string> = {}, branch?: string): string {
  const dir = tempDir("s09-cli-");
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  if (branch) execFileSync("git", ["init", "-q", "-b", branch, dir]);
  return dir;
}

/** The shell's environment without any provider's variables but `extra`, no colours, a home of its own. */
export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !/^(ANTHROPIC_|OPENAI_|HARNESS_)/.test(name) && !["INIT_CWD", "DEBUG", "MODEL_ID"].includes(name),
    ),
  );
  return { ...env, NO_COLOR: "1", HARNESS_HOME: tempDir("s09-home-"), ...extra };
}

/** Run the CLI on `argv` with `lines` piped in; what it printed and its exit status. */
export function runCli(argv: string[], env: NodeJS.ProcessEnv = cleanEnv(), lines: string[] = []) {
  return runInProcess(main, argv, env, lines.map((line) => `${line}\n`).join(""));
}
