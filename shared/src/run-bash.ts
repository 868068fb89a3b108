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
import { deniedReason } from "./denied-command.ts";
import { type GroupRun, type RunInGroupOptions, runInGroup } from "./run-in-group.ts";
import { type ToolResult, toolError } from "./tool-result.ts";

/** Limits of one bash call: those of any program run in a process group, with a default timeout. */
export type RunBashOptions = Pick<RunInGroupOptions, "cwd" | "signal" | "killGraceMs" | "maxOutputBytes"> & {
  /** Milliseconds before the process group is killed (default 120 000). */
  timeoutMs?: number;
};

/** Default seconds before a command is killed. */
export const DEFAULT_BASH_TIMEOUT_SECONDS = 120;

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
  return runInGroup(command, { ...options, timeoutMs, mergeStderr: true }).then((run) =>
    run.startError === undefined
      ? formatResult(run, timeoutMs)
      : toolError(`Error: could not start bash: ${run.startError}`),
  );
}

function formatResult({ stdout: output, exitCode, signal, stopped }: GroupRun, timeoutMs: number): ToolResult {
  const text = output.text().replace(/\n$/, "");
  const body = output.totalBytes === 0 ? "(no output)" : text;
  if (stopped === "timeout") {
    return toolError(`${body}\n[timed out after ${timeoutMs / 1000} s; the process group was killed]`);
  }
  if (stopped === "interrupted") return toolError(`${body}\n[interrupted; the process group was killed]`);
  if (exitCode === null) return toolError(`${body}\n[killed by ${signal ?? "a signal"}]`);
  return { content: `${body}\n[exit code ${exitCode}]`, isError: exitCode !== 0 };
}
