/**
 * Writing a trace: one JSON line per record, appended with a synchronous write before the loop
 * moves on. A crash or `kill -9` therefore loses at most the iteration in flight; the lines
 * before it are already in the file. A trace is only ever appended to, never rewritten.
 */
import { appendFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { knownSecrets, redactLine } from "./redact.ts";
import type { TraceRecord } from "./trace-record.ts";

/** Where traces go: HARNESS_TRACE_DIR, else `.traces` under the working directory. */
export function traceDir(cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  return env.HARNESS_TRACE_DIR || join(cwd, ".traces");
}

/** A fresh trace id: sortable by time, unique enough for one machine. */
export function newTraceId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return `${stamp}-${Math.random().toString(36).slice(2, 8)}`;
}

/** Trace ids name files: letters, digits, dot, dash and underscore only. */
export function isValidTraceId(id: string): boolean {
  return /^[\w.-]{1,100}$/.test(id) && !id.startsWith(".");
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
  }

  /** Append one record as one line; it is on disk when this returns. */
  write(record: TraceRecord): void {
    appendFileSync(this.path, `${redactLine(JSON.stringify(record), this.secrets)}\n`);
  }
}
