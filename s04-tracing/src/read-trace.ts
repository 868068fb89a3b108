/**
 * Reading traces back. A line that does not parse (the torn last line of a run that was killed
 * mid-write) is skipped and counted, never fatal: everything before it is still readable.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type IterationRecord, isValidTraceId, type TraceRecord } from "./trace-record.ts";

/** The records of one trace file, and how many lines could not be read. */
export interface LoadedTrace {
  id: string;
  path: string;
  records: TraceRecord[];
  /** Lines skipped because they did not parse (a torn last line). */
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

/** Read a trace file. */
export function readTrace(path: string): LoadedTrace {
  const id = path.replace(/^.*\//, "").replace(/\.jsonl$/, "");
  const records: TraceRecord[] = [];
  let skippedLines = 0;
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (line.trim() === "") continue;
    try {
      const record = JSON.parse(line) as TraceRecord;
      if (record && typeof record === "object" && typeof record.type === "string") records.push(record);
      else skippedLines++;
    } catch {
      skippedLines++;
    }
  }
  return { id, path, records, skippedLines };
}

/** The path of trace `id` in `dir`; throws a one-line error when the id is invalid or there is no such trace. */
export function tracePath(dir: string, id: string): string {
  if (!isValidTraceId(id)) throw new Error(`invalid trace id "${id}": use letters, digits, . _ -`);
  const path = join(dir, `${id}.jsonl`);
  if (!existsSync(path)) throw new Error(`no trace "${id}" in ${dir} (pnpm trace list shows the ids)`);
  return path;
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
    firstPrompt: first ? promptOf(first) : "",
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

/** The user's prompt that started an iteration's run: the last text the user typed before it. */
export function promptOf(iteration: IterationRecord): string {
  const users = iteration.request.messages.filter((m) => m.role === "user");
  for (let i = users.length - 1; i >= 0; i--) {
    const content = users[i].content;
    if (typeof content === "string") return content;
    const text = content.filter((b) => b.type === "text").map((b) => (b as { text: string }).text);
    if (text.length > 0) return text.join(" ");
  }
  return "";
}
