/**
 * Reading traces back. A line that does not parse (the torn last line of a run that was killed
 * mid-write) is skipped and counted, never fatal: everything before it is still readable. Each
 * request is put back together from the requests before it (`sentRequests`, `requestOf`).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { rebuildRequest } from "../request-delta.ts";
import {
  type ErrorRecord,
  type IterationRecord,
  isValidTraceId,
  type RequestDelta,
  TRACE_FORMAT,
  type TracedRequest,
  type TraceRecord,
} from "../trace-record.ts";

/** The records of one trace file, and how many lines could not be read. */
export interface LoadedTrace {
  id: string;
  path: string;
  records: TraceRecord[];
  /** Lines skipped: a torn last line, or a request whose base is not in the file. */
  skippedLines: number;
}

/** One line of `trace list`. */
export interface TraceSummary {
  id: string;
  path: string;
  /** ISO time of the first request, or "" when no iteration was recorded. */
  startedAt: string;
  firstPrompt: string;
  /** The last run's stop reason; "error" when it ended with an error; "(running or killed)" when it has none. */
  stopReason: string;
  turns: number;
  toolCalls: number;
  inputTokens: number;
  outputTokens: number;
}

/** A record that carries a request. */
export type RequestRecord = IterationRecord | ErrorRecord;

/**
 * Read a trace file. Lines of format 1 (whole requests) are read as records that extend nothing.
 * Contract: throws a one-line error for a line of a format newer than TRACE_FORMAT; a line that
 * is not a record, or whose request extends one that is not in the file, is skipped and counted.
 */
export function readTrace(path: string): LoadedTrace {
  const id = path.replace(/^.*\//, "").replace(/\.jsonl$/, "");
  const records: TraceRecord[] = [];
  let skippedLines = 0;
  const lengths = new Map<number, number>(); // messages in each request read so far, by number
  let lastRequest = 0;
  const lines = readFileSync(path, "utf8").split("\n");
  for (const [i, line] of lines.entries()) {
    if (line.trim() === "") continue;
    let record: TraceRecord;
    try {
      record = JSON.parse(line);
    } catch {
      skippedLines++;
      continue;
    }
    if (!record || typeof record !== "object" || typeof record.type !== "string") {
      skippedLines++;
      continue;
    }
    const version = (record as { version?: unknown }).version ?? 1;
    if (version !== 1 && version !== TRACE_FORMAT) {
      throw new Error(
        `${path}, line ${i + 1}: trace format ${JSON.stringify(version)}, but this tracer reads formats 1 to ${TRACE_FORMAT}`,
      );
    }
    if (version === 1) record = fromFormat1(record, lastRequest + 1);
    if (record.type !== "result") {
      const request = record.request;
      const baseLength = request?.base === undefined ? 0 : lengths.get(request.base);
      const wellFormed = request && typeof request.n === "number" && Array.isArray(request.messages);
      if (!wellFormed || baseLength === undefined || !(request.keep >= 0 && request.keep <= baseLength)) {
        skippedLines++; // its base is missing: it cannot be put back together
        continue;
      }
      lengths.set(request.n, request.keep + request.messages.length);
      lastRequest = Math.max(lastRequest, request.n);
    }
    records.push(record);
  }
  return { id, path, records, skippedLines };
}

/** A line of format 1, whose request is whole, as a record of the current format. */
function fromFormat1(record: TraceRecord, n: number): TraceRecord {
  if (record.type === "result") return { ...record, version: TRACE_FORMAT };
  const whole = record.request as unknown as TracedRequest | undefined;
  const request: RequestDelta | undefined = whole && { n, keep: 0, ...whole };
  return { ...record, version: TRACE_FORMAT, request } as TraceRecord;
}

/**
 * Each request of the trace put back together as it was sent, in file order, with its record.
 * Memory: one rebuilt request at a time (a request usually extends the one just before it).
 */
export function* sentRequests(trace: LoadedTrace): Generator<{ record: RequestRecord; request: TracedRequest }, void> {
  let last: { n: number; request: TracedRequest } | undefined;
  for (const record of trace.records) {
    if (record.type === "result") continue;
    const { base } = record.request;
    const extended = base === undefined ? undefined : base === last?.n ? last.request : requestOf(trace, base);
    const request = rebuildRequest(record.request, extended);
    last = { n: record.request.n, request };
    yield { record, request };
  }
}

/** Request `n` of the trace put back together as it was sent; undefined when there is none. */
export function requestOf(trace: LoadedTrace, n: number): TracedRequest | undefined {
  const chain: RequestDelta[] = [];
  let wanted: number | undefined = n;
  for (let i = trace.records.length - 1; i >= 0 && wanted !== undefined; i--) {
    const record = trace.records[i];
    if (record.type === "result" || record.request.n !== wanted) continue;
    chain.push(record.request);
    wanted = record.request.base;
  }
  if (chain.length === 0 || wanted !== undefined) return undefined;
  return chain.reduceRight<TracedRequest | undefined>((base, delta) => rebuildRequest(delta, base), undefined);
}

/**
 * The trace of the loop a tool call ran, when it ran one of its own (a subagent, s12): kept beside
 * this trace, in a folder named after it, under the call's id (`<trace id>/<call id>.jsonl`).
 */
export function childTraceOf(trace: Pick<LoadedTrace, "path">, callId: string): LoadedTrace | undefined {
  const path = join(trace.path.replace(/\.jsonl$/, ""), `${callId}.jsonl`);
  return isValidTraceId(callId) && existsSync(path) ? readTrace(path) : undefined;
}

/** The path of trace `id` in `dir`; throws a one-line error when the id is invalid or there is no such trace. */
export function tracePath(dir: string, id: string): string {
  if (!isValidTraceId(id)) throw new Error(`invalid trace id "${id}": use letters, digits, . _ -`);
  const path = join(dir, `${id}.jsonl`);
  if (!existsSync(path)) throw new Error(`no trace "${id}" in ${dir} (pnpm trace list shows the ids)`);
  return path;
}

/** The prompt of each run: the user's text that started it, from the run's first request. */
export function runPrompts(trace: LoadedTrace): Map<number, string> {
  const prompts = new Map<number, string>();
  for (const { record, request } of sentRequests(trace)) {
    if (!prompts.has(record.run)) prompts.set(record.run, promptOf(request));
  }
  return prompts;
}

/** The prompt of the request `record` carries (rebuilding only the requests up to it). */
function promptOfRecord(trace: LoadedTrace, record: RequestRecord): string {
  for (const sent of sentRequests(trace)) if (sent.record === record) return promptOf(sent.request);
  return "";
}

/** Summarise a trace for `trace list`. */
export function summariseTrace(trace: LoadedTrace): TraceSummary {
  const iterations = trace.records.filter((r): r is IterationRecord => r.type === "iteration");
  const lastRecord = trace.records.at(-1);
  const first = iterations[0];
  return {
    id: trace.id,
    path: trace.path,
    startedAt: first?.startedAt ?? "",
    firstPrompt: first ? promptOfRecord(trace, first) : "",
    stopReason:
      lastRecord?.type === "result"
        ? lastRecord.result.stopReason
        : lastRecord?.type === "error"
          ? "error"
          : "(running or killed)",
    turns: iterations.length,
    toolCalls: iterations.reduce((n, it) => n + it.toolCalls.length, 0),
    inputTokens: iterations.reduce((n, it) => n + it.response.usage.inputTokens, 0),
    outputTokens: iterations.reduce((n, it) => n + it.response.usage.outputTokens, 0),
  };
}

/** Every trace in `dir`, newest first. */
export function listTraces(dir: string): TraceSummary[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.endsWith(".jsonl"))
    .map((name) => summariseTrace(readTrace(join(dir, name))))
    .sort((a, b) => b.startedAt.localeCompare(a.startedAt) || b.id.localeCompare(a.id));
}

/** The user's prompt a request was made for: the last text the user typed in it. */
export function promptOf(request: { messages: MessageParam[] }): string {
  const users = request.messages.filter((m) => m.role === "user");
  for (let i = users.length - 1; i >= 0; i--) {
    const content = users[i].content;
    if (typeof content === "string") return content;
    const text = content.filter((b) => b.type === "text").map((b) => (b as { text: string }).text);
    if (text.length > 0) return text.join(" ");
  }
  return "";
}
