/**
 * Writing a trace: one JSON line per record, appended with a synchronous write before the loop
 * moves on. A crash or `kill -9` therefore loses at most the iteration in flight; the lines
 * before it are already in the file. A trace is only ever appended to, never rewritten.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { readTrace } from "./read-trace.ts";
import { knownSecrets, redactLine } from "./redact.ts";
import { isValidTraceId, type TraceRecord } from "./trace-record.ts";

/** Where traces go: HARNESS_TRACE_DIR, else `.traces` under the working directory. */
export function traceDir(cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  return env.HARNESS_TRACE_DIR || join(cwd, ".traces");
}

/** A fresh trace id: sortable by time, unique enough for one machine. */
export function newTraceId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return `${stamp}-${Math.random().toString(36).slice(2, 8)}`;
}

/** Appends records to one trace file. */
export class TraceWriter {
  /** The file this writer appends to. */
  readonly path: string;
  /** Which run of the session the next records belong to. */
  run = 0;
  private readonly secrets: string[];

  constructor(
    readonly traceId: string,
    dir: string,
    secrets: string[] = knownSecrets(),
  ) {
    if (!isValidTraceId(traceId)) throw new Error(`invalid trace id "${traceId}": use letters, digits, . _ -`);
    mkdirSync(dir, { recursive: true });
    this.path = join(dir, `${traceId}.jsonl`);
    this.secrets = secrets;
    if (existsSync(this.path)) {
      // an id used before: go on after its runs, and close a torn last line so the next record
      // starts on a line of its own (an append, like every other write)
      this.run = readTrace(this.path).records.reduce((next, r) => Math.max(next, r.run + 1), 0);
      if (!readFileSync(this.path, "utf8").endsWith("\n")) appendFileSync(this.path, "\n");
    }
  }

  /** Append one record as one line; it is on disk when this returns. */
  write(record: TraceRecord): void {
    appendFileSync(this.path, `${redactLine(JSON.stringify(record), this.secrets)}\n`);
  }
}
