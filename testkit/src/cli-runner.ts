/**
 * A chapter's command line, run as a learner runs it: `node --import tsx <chapter>/src/main.ts` in
 * a child process with no terminal, or in the test's own process: on piped streams (`runHere`, for a
 * test that needs no process boundary) or on a fake terminal (to answer the questions it asks).
 * Every directory and process a runner makes is removed after each test.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, afterEach } from "vitest";

/** The repository's root directory (the chapters' commands are run from here). */
export const REPO_ROOT = join(import.meta.dirname, "..", "..");

/**
 * The streams and environment a chapter's `main(argv, io)` runs with: the shape of @harness/cli's
 * `CliIo`, written out so the test kit depends on nothing but the core.
 */
export interface CliIo {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  /** Ends the process at once, on Ctrl-C. */
  exit?: (code: number) => void;
}

import { type ChapterMain, runInProcess } from "./run-in-process.ts";

/** What a CLI run printed and how it exited. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A CLI process that is running (`startCli`); it and its process group are killed after the test. */
export interface RunningCli {
  child: ChildProcess;
  /** What it printed so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit status (`null` when a signal ended it). */
  exited: Promise<number | null>;
}

/** The helpers of one chapter's CLI tests. */
export interface CliRunner {
  /** The chapter's `src/main.ts`. */
  main: string;
  /** A fresh directory holding `files` (path → text), a git repository on branch main when `git` is set. */
  project(files?: Record<string, string>, options?: { git?: boolean }): string;
  /** The environment without the shell's credentials, settings and colours; a home of its own. */
  cleanEnv(extra?: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
  /** Run the CLI to the end in a child process, its input closed (no terminal to ask on) or given. */
  runCli(args: string[], env?: NodeJS.ProcessEnv, input?: string): Promise<CliRun>;
  /**
   * Run the CLI to the end as `runCli` does, but in this process (`runInProcess`, on the `main` the
   * runner was given): for a test that needs no process boundary. Throws without a `main`.
   */
  runHere(args: string[], env?: NodeJS.ProcessEnv, input?: string): Promise<CliRun>;
  /** Start the CLI in a child process with no terminal, its input left open (`child.stdin`), to stop it midway. */
  startCli(args: string[], env: NodeJS.ProcessEnv): RunningCli;
  /** Start any program as `startCli` starts the CLI, from the repository root (a sample's `pnpm` script, say). */
  startProgram(program: string, args: string[], env: NodeJS.ProcessEnv): RunningCli;
  /**
   * Run the CLI to the end on a pseudo-terminal (util-linux `script`), `input` typed ahead: the CLI
   * sees a terminal and asks its questions there. stdout holds all the terminal showed, the
   * input's echo and stderr included.
   */
  runAtTerminal(args: string[], env: NodeJS.ProcessEnv, input: string): Promise<CliRun>;
}

/**
 * The runner for the chapter in `folder` (`"s05-permissions"`); temporary names start with its
 * command (`s05-`). Call it at the top of a test file: it registers its clean-up with `afterEach`.
 * With `main` (the chapter's exported `main`, s05 on), `runHere` runs the CLI in this process.
 */
export function cliRunner(folder: string, { main: chapterMain }: { main?: ChapterMain } = {}): CliRunner {
  const command = folder.split("-")[0];
  const main = join(REPO_ROOT, folder, "src", "main.ts");
  const cleanups: Array<() => unknown> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  const temporary = (kind: string) => {
    const dir = mkdtempSync(join(tmpdir(), `${command}-${kind}-`));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    return dir;
  };

  const project: CliRunner["project"] = (files = {}, { git = false } = {}) => {
    const dir = temporary("cli");
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    if (git) execFileSync("git", ["init", "-q", "-b", "main", dir]);
    return dir;
  };
  const cleanEnv: CliRunner["cleanEnv"] = (extra = {}) => {
    const env = { ...process.env };
    for (const name of Object.keys(env)) {
      if (/^(ANTHROPIC_|HARNESS_)/.test(name) || name === "INIT_CWD" || name === "DEBUG" || name === "MODEL_ID") {
        delete env[name];
      }
    }
    return { ...env, NO_COLOR: "1", HARNESS_HOME: temporary("home"), ...extra };
  };
  const startCli: CliRunner["startCli"] = (args, env) =>
    startProgram(process.execPath, ["--import", "tsx", main, ...args], env);
  const runCli: CliRunner["runCli"] = (args, env = cleanEnv(), input) =>
    run(process.execPath, ["--import", "tsx", main, ...args], env, input);
  const runHere: CliRunner["runHere"] = (args, env = cleanEnv(), input) => {
    if (!chapterMain) throw new Error(`cliRunner("${folder}") was given no main to run in this process`);
    return runInProcess(chapterMain, args, env, input);
  };
  const runAtTerminal: CliRunner["runAtTerminal"] = (args, env, input) => {
    const command = [process.execPath, "--import", "tsx", main, ...args].map(shellQuote).join(" ");
    return run("script", ["-qec", command, "/dev/null"], env, input);
  };
  const startProgram: CliRunner["startProgram"] = (program, args, env) => {
    const child: ChildProcess = spawn(program, args, {
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
    const exited = new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
    return { child, stdout: () => stdout, stderr: () => stderr, exited };
  };
  const run = async (program: string, args: string[], env: NodeJS.ProcessEnv, input?: string): Promise<CliRun> => {
    const cli = startProgram(program, args, env);
    cli.child.stdin?.end(input);
    const code = await cli.exited;
    return { code, stdout: cli.stdout(), stderr: cli.stderr() };
  };
  return { main, project, cleanEnv, runCli, runHere, startCli, startProgram, runAtTerminal };
}

/** A word for `sh -c`, quoted when it needs to be. */
function shellQuote(word: string): string {
  return /^[\w./=:@%+-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** A terminal to type into: stdin is a TTY, so a CLI run on `io` in this process asks its questions there. */
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

/**
 * Fresh copies of a text's sample directory (`/tmp/s05-sample`), made by its `setup` shell block run
 * from the repository root, the path replaced. Each path has the sample's length: the scripted
 * model estimates tokens from a request's size, and the system prompt names the directory. Call it
 * at the top of a `describe`: every copy is removed after its tests.
 */
export function sampleDirs(sampleDir: string, setup: string): () => string {
  const made: string[] = [];
  afterAll(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = mkdtempSync(sampleDir.replace(/[^/]*$/, (name) => `${name.split("-")[0]}-`));
    made.push(dir);
    if (dir.length !== sampleDir.length) throw new Error(`${dir} is not as long as ${sampleDir}`);
    const ran = spawnSync("sh", ["-c", setup.replaceAll(sampleDir, dir)], { cwd: REPO_ROOT, encoding: "utf8" });
    if (ran.status !== 0) throw new Error(`the setup block failed in ${dir}: ${ran.stderr}`);
    return dir;
  };
}
