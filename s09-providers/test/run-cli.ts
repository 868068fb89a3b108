/**
 * s09's command line run in this process, as s08's tests run theirs: `main(argv, io)` on piped
 * input (no terminal), an environment of the test's own (no provider's variables unless given), a
 * home of its own, and fresh project directories. Everything made is removed after the file.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { PassThrough } from "node:stream";
import type { CliIo } from "@harness/shared";
import { afterAll } from "vitest";
import { main } from "../src/main.ts";

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
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

/** An environment with no provider's variables but `extra`, no colours, and a home of its own. */
export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { NO_COLOR: "1", HARNESS_HOME: tempDir("s09-home-"), ...extra };
}

/** Run the CLI on `argv` with `lines` piped in; what it printed and its exit status. */
export async function runCli(argv: string[], env: NodeJS.ProcessEnv = cleanEnv(), lines: string[] = []) {
  const stdin = new PassThrough();
  stdin.end(lines.map((line) => `${line}\n`).join(""));
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
  const io: CliIo = { stdin, stdout, stderr, env, exit: () => {} };
  const code = await main(argv, io);
  return { code, stdout: out, stderr: err };
}
