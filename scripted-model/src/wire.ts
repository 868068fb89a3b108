/**
 * The Messages API wire format, produced from a scripted reply: a JSON `Message` body, or the
 * SSE events of a stream (message_start, content_block_start / delta / stop, ping,
 * message_delta, message_stop) in the order the API sends them.
 */
import type { CacheUse } from "./caching/prompt-cache.ts";
import type { ScriptedBlock, ScriptedReply } from "./script.ts";

/** One server-sent event. */
export interface SseEvent {
  event: string;
  data: Record<string, unknown>;
}

/** Everything needed to put a reply on the wire. */
export interface WireContext {
  messageId: string;
  model: string;
  /** Ids for tool calls that were scripted without one. */
  toolUseId: (index: number) => string;
  /** Input tokens to report when the reply does not say. */
  inputTokens: number;
  /** The response's `context_management` (the server's applied edits), when the request set it. */
  contextManagement?: Record<string, unknown>;
  /** What the request read from and wrote to the prompt cache, when it used it (caching/prompt-cache.ts). */
  cache?: CacheUse;
}

/** A reply's usage as the API reports it; the cache's counts only for a request that used the cache. */
export interface WireUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
  cache_creation?: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
}

/** A request's input tokens as the scripted model counts them: about four characters a token. */
export function estimateInputTokens(body: { system?: unknown; tools?: unknown; messages: unknown }): number {
  return Math.ceil(JSON.stringify([body.system ?? "", body.tools ?? [], body.messages]).length / 4);
}

/** The reply's blocks as API content blocks; a `rawInput` tool call carries its raw text as input. */
export function contentBlocks(reply: ScriptedReply, ctx: WireContext): Record<string, unknown>[] {
  return reply.content.map((block, i) => wireBlock(block, i, ctx));
}

/** The stop reason the reply declares, or the one its content implies. */
export function stopReasonOf(reply: ScriptedReply): string | null {
  if (reply.stopReason !== undefined) return reply.stopReason;
  return reply.content.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn";
}

/**
 * Usage the reply declares, or an estimate: about four characters a token. A request that used the
 * cache reports what it read and wrote; `input_tokens` then counts neither, as the API's does.
 */
export function usageOf(reply: ScriptedReply, ctx: WireContext): WireUsage {
  if (reply.usage) return reply.usage;
  const output = Math.ceil(JSON.stringify(reply.content).length / 4);
  if (!ctx.cache) return { input_tokens: ctx.inputTokens, output_tokens: output };
  // the three counts add up to the request's tokens (the cache's estimate of a prefix may run a little over)
  const read = Math.min(ctx.cache.read, ctx.inputTokens);
  const hour = Math.min(ctx.cache.written["1h"], ctx.inputTokens - read);
  const minutes = Math.min(ctx.cache.written["5m"], ctx.inputTokens - read - hour);
  return {
    input_tokens: ctx.inputTokens - read - hour - minutes,
    output_tokens: output,
    cache_read_input_tokens: read,
    cache_creation_input_tokens: hour + minutes,
    cache_creation: { ephemeral_5m_input_tokens: minutes, ephemeral_1h_input_tokens: hour },
  };
}

/** The reply as a non-streaming response body. */
export function messageBody(reply: ScriptedReply, ctx: WireContext): Record<string, unknown> {
  const usage = usageOf(reply, ctx);
  return {
    id: ctx.messageId,
    type: "message",
    role: "assistant",
    model: ctx.model,
    content: contentBlocks(reply, ctx),
    stop_reason: stopReasonOf(reply),
    stop_sequence: null,
    usage: { cache_creation_input_tokens: 0, cache_read_input_tokens: 0, ...usage, service_tier: "standard" },
    ...(ctx.contextManagement ? { context_management: ctx.contextManagement } : {}),
  };
}

/** The blocks the API streams as a server tool's call: input `{}` at the start, then its deltas. */
const SERVER_TOOL_CALLS = new Set(["server_tool_use", "mcp_tool_use"]);

/** The reply as the events of a stream, text and tool input split into several deltas. */
export function streamEvents(reply: ScriptedReply, ctx: WireContext): SseEvent[] {
  const usage = usageOf(reply, ctx);
  const events: SseEvent[] = [
    {
      event: "message_start",
      data: {
        type: "message_start",
        message: {
          id: ctx.messageId,
          type: "message",
          role: "assistant",
          model: ctx.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          // as the API streams it: the input's counts (the cache's too) at the start, the output's at the end
          usage: { ...usage, output_tokens: 1 },
        },
      },
    },
  ];
  reply.content.forEach((block, index) => {
    const wire = wireBlock(block, index, ctx);
    const start = { ...wire };
    let deltas: Record<string, unknown>[] = [];
    if (block.type === "text") {
      start.text = "";
      deltas = pieces(block.text, 24).map((t) => ({ type: "text_delta", text: t }));
    } else if (block.type === "thinking") {
      start.thinking = "";
      start.signature = "";
      deltas = pieces(block.thinking, 24).map((t) => ({ type: "thinking_delta", thinking: t }));
      deltas.push({ type: "signature_delta", signature: block.signature });
    } else if (block.type === "tool_use") {
      start.input = {};
      const json = "rawInput" in block ? block.rawInput : JSON.stringify(block.input);
      deltas = ["", ...pieces(json, 16)].map((p) => ({ type: "input_json_delta", partial_json: p }));
    } else if (block.type === "other" && SERVER_TOOL_CALLS.has(String(wire.type)) && "input" in wire) {
      // a server tool's call, as the API streams it: its input in deltas (a block the script made
      // malformed on purpose, such as a tool_use with no id, goes out as it was written)
      start.input = {};
      deltas = ["", ...pieces(JSON.stringify(wire.input), 16)].map((p) => ({
        type: "input_json_delta",
        partial_json: p,
      }));
    } else if (wire.type === "compaction") {
      // as the API streams it: an empty block, then one delta with its final content
      start.content = null;
      start.encrypted_content = null;
      deltas = [{ type: "compaction_delta", content: wire.content, encrypted_content: wire.encrypted_content }];
    }
    events.push({ event: "content_block_start", data: { type: "content_block_start", index, content_block: start } });
    if (index === 0) events.push({ event: "ping", data: { type: "ping" } });
    for (const delta of deltas) {
      events.push({ event: "content_block_delta", data: { type: "content_block_delta", index, delta } });
    }
    events.push({ event: "content_block_stop", data: { type: "content_block_stop", index } });
  });
  events.push({
    event: "message_delta",
    data: {
      type: "message_delta",
      delta: { stop_reason: stopReasonOf(reply), stop_sequence: null },
      usage: { output_tokens: usage.output_tokens },
      ...(ctx.contextManagement ? { context_management: ctx.contextManagement } : {}),
    },
  });
  events.push({ event: "message_stop", data: { type: "message_stop" } });
  return events;
}

/** One event as SSE text. */
export function encodeSse(event: SseEvent): string {
  return `event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`;
}

function wireBlock(block: ScriptedBlock, index: number, ctx: WireContext): Record<string, unknown> {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text };
    case "thinking":
      return { type: "thinking", thinking: block.thinking, signature: block.signature };
    case "tool_use": {
      const input = "rawInput" in block ? block.rawInput : block.input;
      return { type: "tool_use", id: block.id ?? ctx.toolUseId(index), name: block.name, input };
    }
    case "other":
      return { ...block.block };
  }
}

/** Split text into pieces of about `size` characters, on code point boundaries. */
function pieces(value: string, size: number): string[] {
  const chars = Array.from(value);
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(""));
  return out;
}
