/**
 * s04's option, and what it builds: `--trace[=ID]` opens one trace for the session, which every
 * prompt after appends to, and a line after each run says where it is and how to read it.
 */
import { relative } from "node:path";
import { type CliOptions, credentialValues, type ExtraOption } from "@harness/cli";
import { TraceRecorder } from "./trace-recorder.ts";
import { newTraceId, TraceWriter, traceDir } from "./trace-writer.ts";

/** `--trace` alone takes a fresh id; `--trace=ID` names one (`--trace ID` is refused: ID could be the prompt). */
export const TRACE_FLAGS: readonly ExtraOption[] = [
  {
    name: "trace",
    type: "string",
    optionalValue: true,
    help: "--trace[=ID]        record every iteration (read it with pnpm trace)",
  },
];

/** A session's trace: the file, and its listener on the loop's events. */
export interface OpenTrace {
  writer: TraceWriter;
  recorder: TraceRecorder;
}

/**
 * The trace `--trace` asks for, in the trace directory of the project in `--cwd` (`traceDir`:
 * outside the project, where the model's tools never look); none without the option.
 * Contract: an id that is not letters, digits, `.`, `_` or `-` throws, before any prompt runs.
 */
export function openTrace(options: CliOptions, env: NodeJS.ProcessEnv): OpenTrace | undefined {
  const id = options.extra.trace; // true: `--trace` alone
  if (id === undefined) return undefined;
  const writer = new TraceWriter(id === true ? newTraceId() : String(id), traceDir(options.cwd, env), secretsOf(env));
  return { writer, recorder: new TraceRecorder(writer) };
}

/** The keys a trace must never hold: every credential of the shell and .env. */
export function secretsOf(env: NodeJS.ProcessEnv): string[] {
  return credentialValues(env);
}

/**
 * Where the trace is, and the commands that read it. The tracer reads the traces of the directory
 * it is started from, so the commands name the project (`--cwd`) when it is another.
 */
export function whereTheTraceIs(trace: OpenTrace, cwd: string, env: NodeJS.ProcessEnv): string {
  const here = env.INIT_CWD ?? process.cwd();
  const near = relative(here, cwd) || ".";
  const custom = traceDir(cwd, env) === traceDir(here, env) ? "" : ` --cwd ${near.startsWith("..") ? cwd : near}`;
  const { traceId, path } = trace.writer;
  return `trace ${traceId} → ${path}\n  pnpm trace show ${traceId}${custom}   ·   pnpm trace view ${traceId}${custom}`;
}

/**
 * What follows each run when there is a trace: the line saying where it is. A run that threw is
 * ended first (its error record was its last), so the next prompt's run takes the next number.
 */
export function traceAfterRun(
  trace: OpenTrace | undefined,
  note: (line: string) => void,
  cwd: string,
  env: NodeJS.ProcessEnv,
): (result?: unknown) => void {
  return (result) => {
    if (!trace) return;
    if (!result) trace.recorder.endRun();
    note(whereTheTraceIs(trace, cwd, env));
  };
}
