/**
 * What a trace holds: one JSON record per line. An `iteration` record per model call (the request
 * as sent, the response, each tool call with its result and duration, and timings), an `error`
 * record when a call fails, and a `result` record when a run ends. A REPL session appends one run
 * after another to the same trace. A trace is named by its id, which is also its file's name.
 */
import type { ContentBlock, MessageParam, Tool } from "@anthropic-ai/sdk/resources/messages";
import type { AgentLoopResult } from "@harness/shared";

/** One tool call as it ran. */
export interface TracedToolCall {
  id: string;
  name: string;
  input: Record<string, unknown>;
  /** The result's text, as sent back to the model. */
  result: string;
  isError: boolean;
  /** Milliseconds from the iteration's start to the call's start. */
  startOffsetMs: number;
  durationMs: number;
}

/** One iteration of the loop: a model call and the tool calls it asked for. */
export interface IterationRecord {
  type: "iteration";
  traceId: string;
  /** Which run of the session (0 for the first prompt). */
  run: number;
  /** The turn number within the run (1 for the first model call). */
  turn: number;
  /** When the request was sent (ISO 8601). */
  startedAt: string;
  /** The request as sent; credentials never appear in it. */
  request: { model: string; max_tokens: number; system: string; tools: Tool[]; messages: MessageParam[] };
  response: {
    id: string;
    model: string;
    content: ContentBlock[];
    stopReason: string | null;
    usage: { inputTokens: number; outputTokens: number };
  };
  toolCalls: TracedToolCall[];
  timings: {
    /** Request sent to first streamed event. */
    ttftMs: number;
    /** Request sent to the end of the stream. */
    modelMs: number;
    /** All tool calls of the iteration, first start to last end. */
    toolMs: number;
  };
}

/** A model call that failed (the run ends with the error). */
export interface ErrorRecord {
  type: "error";
  traceId: string;
  run: number;
  turn: number;
  /** When the failed request was sent (ISO 8601). */
  startedAt: string;
  /** When it failed. */
  at: string;
  /** The request that failed, as sent (to see why, or to send it again). */
  request: IterationRecord["request"];
  message: string;
}

/** The end of a run: its AgentLoopResult. */
export interface ResultRecord {
  type: "result";
  traceId: string;
  run: number;
  at: string;
  result: AgentLoopResult<string>;
}

/** Any line of a trace. */
export type TraceRecord = IterationRecord | ErrorRecord | ResultRecord;

/** Trace ids name files: letters, digits, dot, dash and underscore only. */
export function isValidTraceId(id: string): boolean {
  return /^[\w.-]{1,100}$/.test(id) && !id.startsWith(".");
}
