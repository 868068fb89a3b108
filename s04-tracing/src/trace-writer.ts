/**
 * Writing a trace: one JSON line per record, appended with a synchronous write before the loop
 * moves on. A crash or `kill -9` therefore loses at most the iteration in flight; the lines
 * before it are already in the file. A trace is only ever appended to, never rewritten. The file
 * stays open while a run writes to it, and is closed when the run ends.
 *
 * Traces live with the harness's own data for the project (`harnessDataDir`), not in the
 * project: the model's tools search the working directory, and must never read a trace back.
 */
import { appendFileSync, closeSync, existsSync, mkdirSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { MessageCreateParamsNonStreaming } from "@anthropic-ai/sdk/resources/messages";
import { appendWhole } from "./append-whole.ts";
import { harnessDataDir } from "./harness-data-dir.ts";
import { redactLine } from "./redact.ts";
import { freezeRequest, requestDelta, type SentRequest } from "./request-delta.ts";
import { type ErrorRecord, type IterationRecord, isValidTraceId, type TraceRecord } from "./trace-record.ts";
import { readTrace } from "./viewer/read-trace.ts";

/** Where the traces of the project in `cwd` go: HARNESS_TRACE_DIR, else `traces/` in its harness data directory. */
export function traceDir(cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  return env.HARNESS_TRACE_DIR || join(harnessDataDir(cwd, env), "traces");
}

/** A fresh trace id: sortable by time, unique enough for one machine. */
export function newTraceId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return `${stamp}-${Math.random().toString(36).slice(2, 8)}`;
}

/** A record that carries a request, before the request is written into it. */
export type WithoutRequest = Omit<IterationRecord, "request"> | Omit<ErrorRecord, "request">;

/**
 * Appends records to one trace file.
 * Contract: one run at a time writes through a writer (a REPL's runs follow one another), so the
 * last request it wrote is the one the next request extends.
 */
export class TraceWriter {
  /** The file this writer appends to. */
  readonly path: string;
  /** Which run of the session the next records belong to. */
  run = 0;
  private readonly secrets: readonly string[];
  /** The number of the last request in the file. */
  private requests = 0;
  /** The last request this writer wrote: the next one is written as what is new since it. */
  private last?: { n: number; sent: SentRequest };
  /** The file, open for appending from a run's first record to its end. */
  private fd?: number;

  constructor(
    readonly traceId: string,
    dir: string,
    secrets: readonly string[],
  ) {
    if (!isValidTraceId(traceId)) throw new Error(`invalid trace id "${traceId}": use letters, digits, . _ -`);
    mkdirSync(dir, { recursive: true });
    this.path = join(dir, `${traceId}.jsonl`);
    this.secrets = secrets;
    if (existsSync(this.path)) {
      // an id used before: go on after its runs and requests (the first request is written whole),
      // and close a torn last line so the next record starts on a line of its own
      for (const record of readTrace(this.path).records) {
        this.run = Math.max(this.run, record.run + 1);
        if (record.type !== "result") this.requests = Math.max(this.requests, record.request.n);
      }
      if (!readFileSync(this.path, "utf8").endsWith("\n")) appendFileSync(this.path, "\n");
    }
  }

  /**
   * Append one record as one line; it is on disk when this returns. A write that fails (a full
   * disk) leaves the file ending with its last whole line and throws one line saying so.
   */
  write(record: TraceRecord): void {
    const line = Buffer.from(`${redactLine(JSON.stringify(record), this.secrets)}\n`);
    this.fd ??= openSync(this.path, "a");
    appendWhole(this.fd, line, { what: `the trace ${this.path}`, kept: "every record before this one, whole" });
  }

  /** Close the file until the next record: a run has ended (the next prompt may be long in coming). */
  close(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
  }

  /** Freeze `request` as it is sent, sharing what did not change with the last request written. */
  freeze(request: MessageCreateParamsNonStreaming): SentRequest {
    return freezeRequest(request, this.last?.sent);
  }

  /** Append a record with the request `sent`, written as what is new since the last request written. */
  writeWithRequest(record: WithoutRequest, sent: SentRequest): void {
    const n = this.requests + 1;
    this.write({ ...record, request: requestDelta(sent, n, this.last) });
    this.requests = n;
    this.last = { n, sent };
  }
}
