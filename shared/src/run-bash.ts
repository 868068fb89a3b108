/**
 * The bash tool: run one command and return what it printed, as a value.
 *
 * The hazards a harness meets when a model writes the command: it reads stdin (stdin is closed,
 * so it sees EOF at once), it never ends (a timeout kills its whole process group, grandchildren
 * included), it prints gigabytes (a bounded buffer keeps the head and the tail), it prints
 * binary (decoded with replacement characters), it leaves a server running in the background
 * (the process group is killed when bash exits). Each call is a fresh `bash -c`: a `cd` or an
 * `export` does not carry over to the next call. The API key is not in the command's environment.
 *
 * Left out: sandboxing. The deny list catches accidents, not attacks.
 */
import { spawn } from "node:child_process";
import { BoundedOutput } from "./bounded-output.ts";
import { deniedReason } from "./denied-command.ts";
import { type ToolResult, toolError } from "./tool-result.ts";

/** Limits of one bash call. */
export interface RunBashOptions {
  /** Directory the command runs in. */
  cwd: string;
  /** Milliseconds before the process group is killed (default 120 000). */
  timeoutMs?: number;
  /** Bytes of output kept, head and tail together (default 30 000). */
  maxOutputBytes?: number;
  /** Aborting it kills the process group, as a timeout does. */
  signal?: AbortSignal;
  /** Milliseconds between SIGTERM and SIGKILL when the group is stopped (default 2 000). */
  killGraceMs?: number;
}

/** Default seconds before a command is killed. */
export const DEFAULT_BASH_TIMEOUT_SECONDS = 120;
/** Default bytes of output kept per call. */
export const DEFAULT_MAX_OUTPUT_BYTES = 30_000;

/** Process groups of the commands running now, so an exiting CLI can take them along. */
const running = new Set<number>();

/** Kill every command still running (the CLI calls this when it exits on Ctrl-C). */
export function killRunningCommands(): void {
  for (const pid of running) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {} // already gone
  }
  running.clear();
}

/**
 * Run `command` with bash and return its interleaved stdout and stderr, then its exit status.
 * Contract: never throws and never rejects; every failure is an error result.
 */
export function runBash(command: string, options: RunBashOptions): Promise<ToolResult> {
  if (typeof command !== "string" || command.trim() === "")
    return Promise.resolve(toolError("Error: the command is empty."));
  const denied = deniedReason(command);
  if (denied) {
    return Promise.resolve(toolError(`Error: refused by the deny list (${denied}). Run something narrower.`));
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_BASH_TIMEOUT_SECONDS * 1000;
  const graceMs = options.killGraceMs ?? 2000;
  const output = new BoundedOutput(options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES);

  return new Promise((resolve) => {
    let stopped: "timeout" | "interrupted" | null = null;
    let graceTimer: NodeJS.Timeout | undefined;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    const timers: NodeJS.Timeout[] = [];

    // `exec 2>&1` first, so stdout and stderr share one pipe and keep their true order
    const child = spawn("bash", ["-c", `exec 2>&1\n${command}`], {
      cwd: options.cwd,
      env: commandEnv(),
      detached: true, // its own process group, so one kill reaches every descendant
      stdio: ["ignore", "pipe", "ignore"],
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
    const finish = (result: ToolResult) => {
      for (const timer of timers) clearTimeout(timer);
      clearTimeout(graceTimer);
      options.signal?.removeEventListener("abort", onAbort);
      resolve(result);
    };
    const onAbort = () => stop("interrupted");

    timers.push(setTimeout(() => stop("timeout"), timeoutMs));
    if (options.signal?.aborted) stop("interrupted");
    options.signal?.addEventListener("abort", onAbort);

    child.stdout.on("data", (chunk: Buffer) => output.write(chunk));
    child.on("error", (error) => finish(toolError(`Error: could not start bash: ${error.message}`)));
    child.on("exit", (code, signal) => {
      exit = { code, signal };
      // whatever the command left running in the background goes with it
      killGroup("SIGKILL");
      // a process that left the group (setsid) may still hold the pipe: stop waiting for it
      timers.push(setTimeout(() => child.stdout.destroy(), graceMs));
    });
    child.on("close", () => {
      if (child.pid) running.delete(child.pid);
      const status = exit ?? { code: null, signal: null };
      finish(formatResult(output, status, stopped, timeoutMs));
    });
  });
}

/** The harness's environment minus its credentials: a command has no business reading the API key. */
function commandEnv(): NodeJS.ProcessEnv {
  const { ANTHROPIC_API_KEY: _key, ANTHROPIC_AUTH_TOKEN: _token, ...env } = process.env;
  return env;
}

function formatResult(
  output: BoundedOutput,
  exit: { code: number | null; signal: NodeJS.Signals | null },
  stopped: "timeout" | "interrupted" | null,
  timeoutMs: number,
): ToolResult {
  const text = output.text().replace(/\n$/, "");
  const body = output.totalBytes === 0 ? "(no output)" : text;
  if (stopped === "timeout") {
    return toolError(`${body}\n[timed out after ${timeoutMs / 1000} s; the process group was killed]`);
  }
  if (stopped === "interrupted") return toolError(`${body}\n[interrupted; the process group was killed]`);
  if (exit.code === null) return toolError(`${body}\n[killed by ${exit.signal ?? "a signal"}]`);
  return { content: `${body}\n[exit code ${exit.code}]`, isError: exit.code !== 0 };
}
