/**
 * What a trace holds: one JSON record per line. An `iteration` record per model call (the request,
 * the response, each tool call with its result and duration, and timings), an `error` record when
 * a call fails, and a `result` record when a run ends. A REPL session appends one run after
 * another to the same trace. A trace is named by its id, which is also its file's name.
 *
 * A request is written as what is new since the request before it (request-delta.ts), so a trace
 * grows in step with the conversation; `readTrace` and `sentRequests` put each request back
 * together. Every line says which format it is in.
 */
import type { ContentBlock, MessageParam, Tool } from "@anthropic-ai/sdk/resources/messages";
import type { AgentLoopResult } from "@harness/shared";

/**
 * The format of the lines this code writes. Format 1 (no `version` field) wrote every request
 * whole; it is still read. A line of a later format is refused: an older tracer cannot know it.
 */
export const TRACE_FORMAT = 2;

/** A request as it was sent to the Messages API. */
export interface TracedRequest {
  model: string;
  max_tokens: number;
  system: string;
  tools: Tool[];
  messages: MessageParam[];
}

/**
 * A request as a record holds it: what is new since the request it extends.
 * Contract: the request is the first `keep` messages of request `base`, then `messages`; its
 * system prompt and tools are the base's unless given here. Without `base`, it is all here.
 */
export interface RequestDelta {
  /** This request's number in the trace: 1 for the first one recorded. */
  n: number;
  /** The number of the request this one extends; absent when this one is written whole. */
  base?: number;
  /** How many of the base's messages this request starts with, unchanged. */
  keep: number;
  model: string;
  max_tokens: number;
  /** Only when it is not the base's. */
  system?: string;
  /** Only when they are not the base's. */
  tools?: Tool[];
  /** The messages after the kept ones: appended since the base, or changed since it was sent. */
  messages: MessageParam[];
}

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
  version: typeof TRACE_FORMAT;
  traceId: string;
  /** Which run of the session (0 for the first prompt). */
  run: number;
  /** The turn number within the run (1 for the first model call). */
  turn: number;
  /** When the request was sent (ISO 8601). */
  startedAt: string;
  /** The request, as what is new since the one before; credentials never appear in it. */
  request: RequestDelta;
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
  version: typeof TRACE_FORMAT;
  traceId: string;
  run: number;
  turn: number;
  /** When the failed request was sent (ISO 8601). */
  startedAt: string;
  /** When it failed. */
  at: string;
  /** The request that failed (to see why, or to send it again), as what is new since the one before. */
  request: RequestDelta;
  message: string;
}

/** The end of a run: its AgentLoopResult. */
export interface ResultRecord {
  type: "result";
  version: typeof TRACE_FORMAT;
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
