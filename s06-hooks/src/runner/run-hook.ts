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
import { killRunningCommands, runInGroup } from "@harness/shared";
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

/** Kill every hook (and bash command) still running: the core's `killRunningCommands`, for a CLI exiting on Ctrl-C. */
export const killRunningHooks = killRunningCommands;

/**
 * Run one hook with `input` on its stdin and return what it did.
 * Contract: never throws and never rejects; a hook that cannot start is a run with `startError`.
 */
export async function runHook(hook: HookCommand, input: HookInput, options: RunHookOptions): Promise<HookRun> {
  const startedAt = Date.now();
  const run = await runInGroup(hook.command, {
    cwd: options.cwd,
    env: { HARNESS_PROJECT_DIR: options.cwd, CLAUDE_PROJECT_DIR: options.cwd },
    stdin: `${JSON.stringify(input)}\n`,
    timeoutMs: hook.timeoutMs,
    signal: options.signal,
    killGraceMs: options.killGraceMs,
    maxOutputBytes: options.maxOutputBytes,
  });
  return {
    hook,
    exitCode: run.exitCode,
    signal: run.signal,
    stopped: run.stopped,
    ...(run.startError === undefined ? {} : { startError: run.startError }),
    stdout: run.stdout.text(),
    stderr: run.stderr.text(),
    stdoutCutBytes: run.stdout.cutBytes,
    startedAt,
    endedAt: Date.now(),
  };
}
