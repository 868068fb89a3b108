/**
 * What a test (or a demo brain) tells the scripted model to do for one request: a reply (text,
 * tool calls, any stop reason, usage), or a fault (an HTTP error, an SSE error event, a cut
 * stream, a stream without `message_stop`).
 */

/** One content block of a scripted reply. */
export type ScriptedBlock =
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "tool_use"; name: string; input: Record<string, unknown>; id?: string }
  /** A tool call whose input is sent as this raw text: malformed or cut JSON, for fault tests. */
  | { type: "tool_use"; name: string; rawInput: string; id?: string }
  /** Any other block (server tools, blocks from a newer API), sent as written. */
  | { type: "other"; block: Record<string, unknown> };

/** A reply: the content of one assistant message and how it stopped. */
export interface ScriptedReply {
  kind: "reply";
  content: ScriptedBlock[];
  /** The provider stop reason; by default `tool_use` when a tool call is present, else `end_turn`. */
  stopReason?: string | null;
  /** Usage to report (the cache's counts too, when given); by default estimated from the request and reply sizes. */
  usage?: {
    input_tokens: number;
    output_tokens: number;
    cache_read_input_tokens?: number;
    cache_creation_input_tokens?: number;
  };
  /** Milliseconds to wait before answering (time to first byte). */
  delayMs?: number;
  /** Milliseconds between streamed events. */
  eventDelayMs?: number;
}

/** A failure instead of (or in the middle of) a reply. */
export type ScriptedFault =
  /** An HTTP error response with the API's error body (429, 529 and 5xx are retried by the SDK). */
  | { kind: "http_error"; status: number; retryAfterMs?: number; message?: string }
  /** A streamed reply with an `event: error` after `afterEvents` events (the HTTP status is 200). */
  | { kind: "sse_error"; afterEvents: number; errorType?: string; reply?: ScriptedReply }
  /** A streamed reply whose connection breaks after `afterEvents` events. */
  | { kind: "cut"; afterEvents: number; reply?: ScriptedReply }
  /** A streamed reply that ends cleanly, but without `message_stop`. */
  | { kind: "no_message_stop"; reply?: ScriptedReply }
  /** Never answer: wait until the request is aborted. */
  | { kind: "hang" };

/** One step of a script. */
export type ScriptStep = ScriptedReply | ScriptedFault;

/** A text block. */
export function text(value: string): ScriptedBlock {
  return { type: "text", text: value };
}

/** A tool call block with a JSON object input. */
export function toolUse(name: string, input: Record<string, unknown>, id?: string): ScriptedBlock {
  return { type: "tool_use", name, input, id };
}

/** A bash tool call block running `command`. */
export function bashCall(command: string, id?: string): ScriptedBlock {
  return toolUse("bash", { command }, id);
}

/** A reply made of these blocks. */
export function reply(content: ScriptedBlock[], options: Omit<ScriptedReply, "kind" | "content"> = {}): ScriptedReply {
  return { kind: "reply", content, ...options };
}

/** A reply of one text block that ends the turn. */
export function textReply(value: string, options: Omit<ScriptedReply, "kind" | "content"> = {}): ScriptedReply {
  return reply([text(value)], options);
}
