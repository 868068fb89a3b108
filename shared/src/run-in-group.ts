/**
 * One program the harness does not control, run in a process group of its own: the bash tool's
 * commands and s06's hooks go through here. The hazards are the same for both: it reads stdin
 * (given or closed), it never ends (at its timeout the whole group is killed, SIGTERM then
 * SIGKILL), it prints gigabytes (each stream is kept in a bounded buffer), it leaves something
 * running (the group is killed when it exits), it reads the harness's keys (they are not in its
 * environment).
 */
import { spawn } from "node:child_process";
import { BoundedOutput, DEFAULT_MAX_OUTPUT_BYTES } from "./bounded-output.ts";

/** How one program runs. */
export interface RunInGroupOptions {
  /** Its working directory. */
  cwd: string;
  /** Variables added to the harness's environment (the credentials are always taken out). */
  env?: NodeJS.ProcessEnv;
  /** Written to its stdin, which is then closed; without it, stdin is closed at once. */
  stdin?: string;
  /** Milliseconds before the group is stopped. */
  timeoutMs: number;
  /** Aborting it stops the group, as the timeout does. */
  signal?: AbortSignal;
  /** Milliseconds between SIGTERM and SIGKILL when the group is stopped (default 2 000). */
  killGraceMs?: number;
  /** Bytes kept of each stream, head and tail (default 30 000). */
  maxOutputBytes?: number;
  /** One stream: stderr joins stdout in the order they were written (`exec 2>&1`). */
  mergeStderr?: boolean;
}

/** What the program did. */
export interface GroupRun {
  /** The exit code; null when a signal ended it or it never started. */
  exitCode: number | null;
  /** The signal that ended it, if one did. */
  signal: NodeJS.Signals | null;
  /** Set when the harness stopped it: its timeout passed, or the caller aborted. */
  stopped: "timeout" | "interrupted" | null;
  /** Set when bash could not be started at all. */
  startError?: string;
  /** What it printed (with stderr in it, when merged). */
  stdout: BoundedOutput;
  /** What it printed on stderr (empty when merged). */
  stderr: BoundedOutput;
}

/** Process groups running now, so an exiting CLI can take them along. */
const running = new Set<number>();

/** Kill every command and hook still running (the CLI calls this when it exits on Ctrl-C). */
export function killRunningCommands(): void {
  for (const pid of running) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {} // already gone
  }
  running.clear();
}

/**
 * The harness's environment without its credentials: every variable whose name says it holds a key
 * (`…_API_KEY`, `…_AUTH_TOKEN`: Anthropic's, OpenAI's, any provider's).
 */
export function withoutCredentials(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !/(?:_API_KEY|_AUTH_TOKEN)$/i.test(name)));
}

/**
 * Run `command` with `bash -c` in a process group of its own.
 * Contract: never throws and never rejects; a program that cannot start is a run with `startError`.
 */
export function runInGroup(command: string, options: RunInGroupOptions): Promise<GroupRun> {
  const graceMs = options.killGraceMs ?? 2000;
  const maxBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const stdout = new BoundedOutput(maxBytes);
  const stderr = new BoundedOutput(maxBytes);

  return new Promise((resolve) => {
    let stopped: GroupRun["stopped"] = null;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let startError: string | undefined;
    let graceTimer: NodeJS.Timeout | undefined;
    const timers: NodeJS.Timeout[] = [];

    // merged: `exec 2>&1` first, so stdout and stderr share one pipe and keep their true order
    const script = options.mergeStderr ? `exec 2>&1\n${command}` : command;
    // --norc: a top-level bash whose stdin is a socket (Node's pipes are) reads ~/.bashrc, as if
    // sshd ran it, and whatever that prints would land in the output
    const child = spawn("bash", ["--norc", "-c", script], {
      cwd: options.cwd,
      env: { ...withoutCredentials(process.env), ...options.env },
      detached: true, // its own process group, so one kill reaches every descendant
      stdio: [options.stdin === undefined ? "ignore" : "pipe", "pipe", options.mergeStderr ? "ignore" : "pipe"],
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

    timers.push(setTimeout(() => stop("timeout"), options.timeoutMs));
    if (options.signal?.aborted) stop("interrupted");
    options.signal?.addEventListener("abort", onAbort);

    if (child.stdin) {
      // a program that never reads its stdin, or exits first, closes the pipe: EPIPE is expected
      child.stdin.on("error", () => {});
      child.stdin.end(options.stdin);
    }
    child.stdout?.on("data", (chunk: Buffer) => stdout.write(chunk));
    child.stderr?.on("data", (chunk: Buffer) => stderr.write(chunk));
    child.on("error", (error) => {
      startError = error.message;
      if (!child.pid) finish(); // it never started: no exit or close may follow
    });
    child.on("exit", (code, signal) => {
      exit = { code, signal };
      // whatever it left running in the background goes with it
      killGroup("SIGKILL");
      // a process that left the group (setsid) may still hold a pipe: stop waiting for it
      timers.push(
        setTimeout(() => {
          child.stdout?.destroy();
          child.stderr?.destroy();
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
        exitCode: exit?.code ?? null,
        signal: exit?.signal ?? null,
        stopped,
        ...(startError === undefined ? {} : { startError }),
        stdout,
        stderr,
      });
    }
  });
}
