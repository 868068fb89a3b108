/**
 * The Chat Completions wire format (`POST /v1/chat/completions`), spoken by the scripted model from
 * the same replies as the Messages API: a JSON `chat.completion`, or a stream of
 * `chat.completion.chunk` payloads ending with `data: [DONE]`. The stream is a translation of the
 * Messages API events, event by event, so a fault scripted "after N events" lands at the same
 * place of the reply in both formats.
 *
 * Requests are read back into the Messages API's shape (for the brain and for tests to assert on),
 * after the checks the API makes with its own words: every `tool_calls` answered by `tool`
 * messages, no `tool` message without a call, and (DeepSeek's rule) `reasoning_content` sent back
 * on a tool-call turn that had it.
 *
 * Left out: `n` > 1, logprobs, audio, images, the legacy `function_call` field.
 */
import type { MessageCreateParams, MessageParam } from "@anthropic-ai/sdk/resources/messages";
import type { ScriptedReply } from "../script.ts";
import { contentBlocks, type SseEvent, stopReasonOf, usageOf, type WireContext } from "../wire.ts";

type Json = Record<string, unknown>;

/** A request read off the wire: as the Messages API would have it, or the 400 the API would answer. */
export type WireRequest = { request: MessageCreateParams } | { problem: string };

/** The Messages API stop reason a Chat Completions `finish_reason` is sent as (others go as they are). */
const FINISH_REASONS: Record<string, string> = {
  end_turn: "stop",
  stop_sequence: "stop",
  pause_turn: "stop",
  tool_use: "tool_calls",
  max_tokens: "length",
  model_context_window_exceeded: "length",
  refusal: "content_filter",
};

/** The `finish_reason` a reply's stop reason is sent as. */
export function chatFinishReason(stopReason: string | null): string | null {
  return stopReason === null ? null : (FINISH_REASONS[stopReason] ?? stopReason);
}

/**
 * The scripted model's Chat Completions side. It remembers which tool calls it sent with
 * reasoning, to hold a request to DeepSeek's rule that such reasoning comes back.
 */
export class ChatCompletionsWire {
  private readonly reasonedCalls = new Set<string>();

  /** Read a request body: check it as the API would, and translate it. */
  read(body: unknown): WireRequest {
    if (!isRecord(body)) return { problem: "We could not parse the JSON body of your request." };
    if (typeof body.model !== "string" || body.model === "") return { problem: "you must provide a model parameter" };
    if (!Array.isArray(body.messages)) return { problem: "Missing required parameter: 'messages'." };
    const problem = this.historyProblem(body.messages);
    if (problem) return { problem };
    return { request: toMessagesRequest(body, body.messages as Json[]) };
  }

  /** The reply as a non-streaming `chat.completion` body. */
  body(reply: ScriptedReply, ctx: WireContext): Json {
    const message: Json = { role: "assistant", content: null, refusal: null };
    const text: string[] = [];
    const calls: Json[] = [];
    for (const block of contentBlocks(reply, ctx)) {
      if (block.type === "text") text.push(String(block.text));
      else if (block.type === "thinking") message.reasoning_content = block.thinking;
      else if (block.type === "tool_use") calls.push(this.toolCall(block, calls.length, message));
    }
    if (text.length > 0) message.content = text.join("");
    if (calls.length > 0) message.tool_calls = calls;
    const usage = usageOf(reply, ctx);
    return {
      id: chatId(ctx),
      object: "chat.completion",
      created: 0,
      model: ctx.model,
      choices: [{ index: 0, message, logprobs: null, finish_reason: chatFinishReason(stopReasonOf(reply)) }],
      usage: chatUsage(usage.input_tokens, usage.output_tokens, usage.cache_read_input_tokens),
    };
  }

  /**
   * The Messages API events of a reply as Chat Completions SSE text, one string per event (empty
   * when the event has no counterpart). The finish reason goes out with `message_stop`, so a
   * stream cut before it has none; usage follows when the request asked for it.
   */
  sse(events: readonly SseEvent[], ctx: WireContext, includeUsage: boolean): string[] {
    const toolIndex = new Map<number, number>(); // Messages block index → tool_calls index
    const toolIds = new Map<number, string>();
    let inputTokens = 0;
    let cachedTokens: number | undefined; // present when the request used the prompt cache
    let outputTokens = 0;
    let stopReason: string | null = null;
    let reasoning = false;
    const chunk = (delta: Json, finish: string | null = null, extra: Json = {}) =>
      data({
        id: chatId(ctx),
        object: "chat.completion.chunk",
        created: 0,
        model: ctx.model,
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
        ...extra,
      });
    return events.map((event) => {
      const d = event.data as Json;
      switch (event.event) {
        case "message_start": {
          const usage = (d.message as { usage?: Json }).usage;
          inputTokens = Number(usage?.input_tokens ?? 0);
          cachedTokens =
            usage?.cache_read_input_tokens === undefined ? undefined : Number(usage.cache_read_input_tokens);
          return chunk({ role: "assistant", content: "" });
        }
        case "content_block_start": {
          const block = d.content_block as Json;
          if (block.type !== "tool_use") return "";
          const index = toolIndex.size;
          toolIndex.set(Number(d.index), index);
          toolIds.set(Number(d.index), String(block.id));
          const call = { index, id: block.id, type: "function", function: { name: block.name, arguments: "" } };
          return chunk({ tool_calls: [call] });
        }
        case "content_block_delta": {
          const delta = d.delta as Json;
          if (delta.type === "text_delta") return chunk({ content: delta.text });
          if (delta.type === "thinking_delta") {
            reasoning = true;
            return chunk({ content: null, reasoning_content: delta.thinking });
          }
          if (delta.type === "input_json_delta" && delta.partial_json !== "") {
            const index = toolIndex.get(Number(d.index));
            return chunk({ tool_calls: [{ index, function: { arguments: delta.partial_json } }] });
          }
          return "";
        }
        case "content_block_stop": {
          const id = toolIds.get(Number(d.index));
          if (reasoning && id !== undefined) this.reasonedCalls.add(id);
          return "";
        }
        case "message_delta":
          stopReason = ((d.delta as Json).stop_reason as string | null) ?? null;
          outputTokens = Number((d.usage as Json).output_tokens ?? 0);
          return "";
        case "message_stop": {
          const finish = chunk({}, chatFinishReason(stopReason));
          const usage = includeUsage
            ? data({
                id: chatId(ctx),
                object: "chat.completion.chunk",
                created: 0,
                model: ctx.model,
                choices: [],
                usage: chatUsage(inputTokens, outputTokens, cachedTokens),
              })
            : "";
          return `${finish}${usage}data: [DONE]\n\n`;
        }
        case "error": {
          const error = d.error as Json;
          return data({ error: { message: error.message, type: error.type, param: null, code: null } });
        }
        default:
          return ""; // ping
      }
    });
  }

  private toolCall(block: Json, index: number, message: Json): Json {
    if (typeof message.reasoning_content === "string") this.reasonedCalls.add(String(block.id));
    const args = typeof block.input === "string" ? block.input : JSON.stringify(block.input);
    return { index, id: block.id, type: "function", function: { name: block.name, arguments: args } };
  }

  /** The first problem the API would name in this history, in its words; `null` when none. */
  private historyProblem(messages: unknown[]): string | null {
    const roles = ["system", "developer", "user", "assistant", "tool", "function"];
    let open: string[] = []; // tool_call ids still waiting for their tool message
    let answering = false; // the messages since the last tool_calls are tool messages
    for (const [i, message] of messages.entries()) {
      if (!isRecord(message) || !roles.includes(String(message.role))) {
        const role = isRecord(message) ? String(message.role) : typeof message;
        return `Invalid value: '${role}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.`;
      }
      if (message.role === "tool") {
        if (!answering) {
          return "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.";
        }
        open = open.filter((id) => id !== message.tool_call_id);
        continue;
      }
      if (open.length > 0) return missingResults(open);
      answering = false;
      if (message.role !== "assistant") continue;
      const calls = Array.isArray(message.tool_calls) ? (message.tool_calls as Json[]) : [];
      if (message.content == null && calls.length === 0) {
        return `Invalid value for 'messages[${i}].content': expected a string, got null.`;
      }
      if (calls.some((c) => this.reasonedCalls.has(String(c.id))) && typeof message.reasoning_content !== "string") {
        return "The `reasoning_content` in the thinking mode must be passed back to the API.";
      }
      open = calls.map((c) => String(c.id));
      answering = calls.length > 0;
    }
    return open.length > 0 ? missingResults(open) : null;
  }
}

function missingResults(ids: string[]): string {
  return (
    "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. " +
    `The following tool_call_ids did not have response messages: ${ids.join(", ")}`
  );
}

/** The request as the Messages API would have it: system text, alternating turns, tool blocks. */
function toMessagesRequest(body: Json, chat: Json[]): MessageCreateParams {
  const system: string[] = [];
  const messages: MessageParam[] = [];
  const add = (role: "user" | "assistant", blocks: Json[]) => {
    const last = messages.at(-1);
    if (last?.role === role && Array.isArray(last.content)) (last.content as unknown as Json[]).push(...blocks);
    else messages.push({ role, content: blocks as unknown as MessageParam["content"] });
  };
  for (const message of chat) {
    const text = textOf(message.content);
    if (message.role === "system" || message.role === "developer") system.push(text);
    else if (message.role === "user")
      add(
        "user",
        textParts(message.content).map((part) => ({ type: "text", text: part })),
      );
    else if (message.role === "tool") {
      add("user", [{ type: "tool_result", tool_use_id: String(message.tool_call_id), ...readResult(text) }]);
    } else if (message.role === "assistant") {
      const blocks: Json[] = [];
      if (typeof message.reasoning_content === "string") {
        blocks.push({ type: "thinking", thinking: message.reasoning_content, signature: "" });
      }
      if (text) blocks.push({ type: "text", text });
      for (const call of Array.isArray(message.tool_calls) ? (message.tool_calls as Json[]) : []) {
        const fn = isRecord(call.function) ? call.function : {};
        blocks.push({ type: "tool_use", id: call.id, name: fn.name, input: parseObject(fn.arguments) });
      }
      add("assistant", blocks);
    }
  }
  const tools = (Array.isArray(body.tools) ? (body.tools as Json[]) : []).map((tool) => {
    const fn = isRecord(tool.function) ? tool.function : {};
    return { name: String(fn.name), description: fn.description as string | undefined, input_schema: fn.parameters };
  });
  return {
    model: String(body.model),
    max_tokens: Number(body.max_completion_tokens ?? body.max_tokens ?? 4096),
    ...(system.length > 0 ? { system: system.join("\n\n") } : {}),
    messages,
    ...(tools.length > 0 ? { tools: tools as MessageCreateParams["tools"] } : {}),
    stream: body.stream === true,
  } as MessageCreateParams;
}

function chatId(ctx: WireContext): string {
  return ctx.messageId.replace(/^msg_/, "chatcmpl-");
}

/**
 * Chat Completions' usage: its `prompt_tokens` count the cached ones too (the Messages API's
 * `input_tokens` do not), and `prompt_tokens_details.cached_tokens` says how many were read.
 */
function chatUsage(input: number, output: number, cached?: number): Json {
  const prompt = input + (cached ?? 0);
  return {
    prompt_tokens: prompt,
    completion_tokens: output,
    total_tokens: prompt + output,
    ...(cached === undefined ? {} : { prompt_tokens_details: { cached_tokens: cached } }),
  };
}

function data(payload: Json): string {
  return `data: ${JSON.stringify(payload)}\n\n`;
}

/** The texts of a message's content, one per part (a client sends several blocks as several parts). */
export function textParts(content: unknown): string[] {
  if (typeof content === "string") return content ? [content] : [];
  if (!Array.isArray(content)) return [];
  return content.flatMap((part) => (isRecord(part) && typeof part.text === "string" && part.text ? [part.text] : []));
}

/** The text of a message's content: a string, or the text of its parts. */
export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part) => (isRecord(part) && typeof part.text === "string" ? part.text : "")).join("");
}

/**
 * A tool result's text as a model reads it. These formats have no `is_error`: a result whose first
 * word is "Error" is a failure, and an `Error: ` put before the text to say so is taken off again.
 */
export function readResult(text: string): { content: string; is_error?: true } {
  if (text.startsWith("Error: ")) return { content: text.slice("Error: ".length), is_error: true };
  return /^Error\b/.test(text) ? { content: text, is_error: true } : { content: text };
}

/** A tool call's arguments as an object: `{}` when they are not a JSON object. */
export function parseObject(value: unknown): Json {
  if (isRecord(value)) return value;
  if (typeof value !== "string") return {};
  try {
    const parsed: unknown = JSON.parse(value);
    return isRecord(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
