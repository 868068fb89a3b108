/**
 * A chapter's CLI run in the test's own process: its exported `main(argv, io)` on piped streams
 * (no terminal), seeing what a child run from the repository root sees. Starting a child costs
 * about a second of loading through tsx; a test that needs no process boundary (no signal, no
 * second process, no terminal, no process id) runs the CLI here instead.
 *
 * The harness reads some variables from `process.env` rather than from its io (the bash tool's
 * and the hooks' environment, the secrets a trace redacts, the harness home), so while a run
 * lasts `process.env` is the run's environment, as it would be in a child: one run at a time.
 */
import { PassThrough } from "node:stream";
import { type CliIo, type CliRun, REPO_ROOT } from "./cli-runner.ts";

/** A chapter's `main` (s05 on): run the CLI on `argv` with these streams, resolve with its exit status. */
export type ChapterMain = (argv: string[], io: CliIo) => Promise<number>;

let running = false;

/**
 * Run `main` on `argv` to the end: `input` on its stdin (then closed), `env` as its environment
 * and as `process.env` meanwhile, started from the repository root (`INIT_CWD`, unless `env` sets
 * it), as `node --import tsx <chapter>/src/main.ts` run from there would be.
 * Contract: rejects at once when another run in this process has not ended; `process.env` is
 * restored on every path; a CLI that asks to end the process (Ctrl-C) throws, as nothing here sends one.
 */
export async function runInProcess(
  main: ChapterMain,
  argv: string[],
  env: NodeJS.ProcessEnv,
  input = "",
): Promise<CliRun> {
  if (running) throw new Error("runInProcess: another run has not ended (process.env holds one run's environment)");
  running = true;
  const runEnv: NodeJS.ProcessEnv = { INIT_CWD: REPO_ROOT, ...env };
  const saved = { ...process.env };
  replaceProcessEnv(runEnv);
  try {
    const stdin = new PassThrough();
    stdin.end(input);
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
    const exit = (code: number) => {
      throw new Error(`runInProcess: the CLI asked to end the process (${code}): run it in a child to test that`);
    };
    const code = await main(argv, { stdin, stdout, stderr, env: runEnv, exit });
    await new Promise((resolve) => setImmediate(resolve)); // what was written last reaches the listeners
    return { code, stdout: out, stderr: err };
  } finally {
    replaceProcessEnv(saved);
    running = false;
  }
}

/** Make `process.env` hold exactly `env`, in place (the object others hold stays the same). */
function replaceProcessEnv(env: NodeJS.ProcessEnv): void {
  for (const name of Object.keys(process.env)) if (!(name in env)) delete process.env[name];
  for (const [name, value] of Object.entries(env)) if (value !== undefined) process.env[name] = value;
}
