/**
 * Running one hook: `bash -c <command>` in the working directory, its input as one JSON object on
 * stdin, `HARNESS_PROJECT_DIR` (and `CLAUDE_PROJECT_DIR`, for hooks written for Claude Code) in
 * its environment. What it printed and how it exited come back as a value; reading them is
 * read-hook-run.ts's job.
 *
 * A hook is a program the harness does not control, so it meets the bash tool's hazards: it never
 * reads stdin (the input is written without waiting; a closed pipe is fine), it never ends (at its
 * timeout its whole process group is killed, SIGTERM then SIGKILL), it prints gigabytes (stdout
 * and stderr are each kept within a bounded buffer), it leaves something running (the group is
 * killed when it exits). The API key is not in its environment.
 */
import { spawn } from "node:child_process";
import { BoundedOutput, DEFAULT_MAX_OUTPUT_BYTES } from "@harness/shared";
import type { HookInput } from "./hook-input.ts";
import type { HookCommand } from "./load-hooks.ts";

/** How one hook runs. */
export interface RunHookOptions {
  /** The working directory: the hook's cwd and its project dir. */
  cwd: string;
  /** Aborting it kills the hook's process group, as its timeout does. */
  signal?: AbortSignal;
  /** Bytes kept of stdout, and again of stderr, head and tail (default 30 000, as bash's). */
  maxOutputBytes?: number;
  /** Milliseconds between SIGTERM and SIGKILL when the group is stopped (default 2 000). */
  killGraceMs?: number;
}

/** What one hook did. */
export interface HookRun {
  hook: HookCommand;
  /** The exit code; null when a signal ended it or it never started. */
  exitCode: number | null;
  /** The signal that ended it, if one did. */
  signal: NodeJS.Signals | null;
  /** Set when the harness stopped it: its timeout passed, or the caller aborted. */
  stopped: "timeout" | "interrupted" | null;
  /** Set when bash could not be started at all. */
  startError?: string;
  stdout: string;
  stderr: string;
  /** Bytes of stdout that were not kept (a flood). */
  stdoutCutBytes: number;
  /** `Date.now()` when it was started and when its result was ready. */
  startedAt: number;
  endedAt: number;
}

/** Process groups of the hooks running now, so an exiting CLI can take them along. */
const running = new Set<number>();

/** Kill every hook still running (a CLI calls this when it exits on Ctrl-C). */
export function killRunningHooks(): void {
  for (const pid of running) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {} // already gone
  }
  running.clear();
}

/**
 * Run one hook with `input` on its stdin and return what it did.
 * Contract: never throws and never rejects; a hook that cannot start is a run with `startError`.
 */
export function runHook(hook: HookCommand, input: HookInput, options: RunHookOptions): Promise<HookRun> {
  const graceMs = options.killGraceMs ?? 2000;
  const maxBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const stdout = new BoundedOutput(maxBytes);
  const stderr = new BoundedOutput(maxBytes);
  const startedAt = Date.now();

  return new Promise((resolve) => {
    let stopped: HookRun["stopped"] = null;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let startError: string | undefined;
    let graceTimer: NodeJS.Timeout | undefined;
    const timers: NodeJS.Timeout[] = [];

    const child = spawn("bash", ["-c", hook.command], {
      cwd: options.cwd,
      env: hookEnv(options.cwd),
      detached: true, // its own process group, so one kill reaches every descendant
      stdio: ["pipe", "pipe", "pipe"],
    });
    if (child.pid) running.add(child.pid);
    const killGroup = (signal: NodeJS.Signals) => {
      try {
        if (child.pid) process.kill(-child.pid, signal);
      } catch {} // the group is already gone
    };
    const stop = (why: "timeout" | "interrupted") => {
      if (stopped || exit) return;
      stopped = why;
      killGroup("SIGTERM");
      graceTimer = setTimeout(() => killGroup("SIGKILL"), graceMs);
    };
    const onAbort = () => stop("interrupted");

    timers.push(setTimeout(() => stop("timeout"), hook.timeoutMs));
    if (options.signal?.aborted) stop("interrupted");
    options.signal?.addEventListener("abort", onAbort);

    // a hook that never reads its stdin, or exits first, closes the pipe: EPIPE is expected
    child.stdin.on("error", () => {});
    child.stdin.end(`${JSON.stringify(input)}\n`);
    child.stdout.on("data", (chunk: Buffer) => stdout.write(chunk));
    child.stderr.on("data", (chunk: Buffer) => stderr.write(chunk));
    child.on("error", (error) => {
      startError = error.message;
      if (!child.pid) finish(); // it never started: no exit or close may follow
    });
    child.on("exit", (code, signal) => {
      exit = { code, signal };
      // whatever the hook left running in the background goes with it
      killGroup("SIGKILL");
      // a process that left the group (setsid) may still hold a pipe: stop waiting for it
      timers.push(
        setTimeout(() => {
          child.stdout.destroy();
          child.stderr.destroy();
        }, graceMs),
      );
    });
    child.on("close", () => finish());

    let finished = false;
    function finish() {
      if (finished) return;
      finished = true;
      if (child.pid) running.delete(child.pid);
      for (const timer of timers) clearTimeout(timer);
      clearTimeout(graceTimer);
      options.signal?.removeEventListener("abort", onAbort);
      resolve({
        hook,
        exitCode: exit?.code ?? null,
        signal: exit?.signal ?? null,
        stopped,
        ...(startError === undefined ? {} : { startError }),
        stdout: stdout.text(),
        stderr: stderr.text(),
        stdoutCutBytes: stdout.cutBytes,
        startedAt,
        endedAt: Date.now(),
      });
    }
  });
}

/** The harness's environment minus its credentials, plus where the project is. */
function hookEnv(cwd: string): NodeJS.ProcessEnv {
  const { ANTHROPIC_API_KEY: _key, ANTHROPIC_AUTH_TOKEN: _token, ...env } = process.env;
  return { ...env, HARNESS_PROJECT_DIR: cwd, CLAUDE_PROJECT_DIR: cwd };
}
