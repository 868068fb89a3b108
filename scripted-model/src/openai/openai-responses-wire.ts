/**
 * The Responses API wire format (`POST /v1/responses`), spoken by the scripted model from the same
 * replies as the Messages API: a JSON `response` object, or its stream of typed events
 * (`response.created` … `response.completed`). Like the Chat Completions wire, the stream is a
 * translation of the Messages API events, event by event, so a scripted fault lands at the same
 * place of the reply.
 *
 * A thinking block goes out as a `reasoning` item whose `encrypted_content` is opaque, and a
 * stateless request (`store: false`) must send that item back unchanged: like the API, the model
 * verifies it without keeping any state (the content seals the item's id), and refuses a request
 * that drops or alters it, in the API's words. A cut or refused reply ends
 * `incomplete`, with its reason.
 *
 * Left out: built-in tools, `previous_response_id` (the model keeps no conversations), structured
 * output, the `content` of reasoning items.
 */
import type { MessageCreateParams, MessageParam } from "@anthropic-ai/sdk/resources/messages";
import type { ScriptedReply } from "../script.ts";
import { type SseEvent, streamEvents, type WireContext } from "../wire.ts";
import { parseObject, readResult, textOf, textParts, type WireRequest } from "./openai-chat-wire.ts";

type Json = Record<string, unknown>;

/** How a reply with this Messages API stop reason ends in the Responses API: completed, or incomplete and why. */
export function responsesEnding(stopReason: string | null): { status: string; reason: string | null } {
  switch (stopReason) {
    case null:
    case "end_turn":
    case "stop_sequence":
    case "tool_use":
    case "pause_turn":
      return { status: "completed", reason: null };
    case "max_tokens":
    case "model_context_window_exceeded":
      return { status: "incomplete", reason: "max_output_tokens" };
    case "refusal":
      return { status: "incomplete", reason: "content_filter" };
    default:
      return { status: "incomplete", reason: stopReason };
  }
}

/** The `encrypted_content` of a reasoning item: opaque to the client, verifiable by any scripted model. */
function seal(id: string, signature: string): string {
  return `enc_${Buffer.from(JSON.stringify([id, signature])).toString("base64url")}`;
}

/** True when `encrypted` was sealed for the item `id`. */
function verifies(id: string, encrypted: string): boolean {
  try {
    const [sealedId] = JSON.parse(Buffer.from(encrypted.replace(/^enc_/, ""), "base64url").toString("utf8"));
    return encrypted.startsWith("enc_") && sealedId === id;
  } catch {
    return false;
  }
}

/** The scripted model's Responses API side. */
export class ResponsesWire {
  /** Read a request body: check it as the API would, and translate it. */
  read(body: unknown): WireRequest {
    if (!isRecord(body)) return { problem: "We could not parse the JSON body of your request." };
    if (typeof body.model !== "string" || body.model === "") return { problem: "Missing required parameter: 'model'." };
    const input = typeof body.input === "string" ? [{ role: "user", content: body.input }] : body.input;
    if (!Array.isArray(input)) return { problem: "Missing required parameter: 'input'." };
    const problem = this.inputProblem(input, body.store === false);
    if (problem) return { problem };
    return { request: toMessagesRequest(body, input as Json[]) };
  }

  /** The reply as a non-streaming `response` body: the one its stream completes with. */
  body(reply: ScriptedReply, ctx: WireContext): Json {
    const payloads = this.events(streamEvents(reply, ctx), ctx).flat();
    return (payloads.at(-1) as { response: Json }).response;
  }

  /** The Messages API events of a reply as Responses API SSE text, one string per event. */
  sse(events: readonly SseEvent[], ctx: WireContext): string[] {
    return this.events(events, ctx).map((payloads) =>
      payloads.map((p) => `event: ${p.type}\ndata: ${JSON.stringify(p)}\n\n`).join(""),
    );
  }

  /** The Responses API events for each Messages API event (none for some, several for others). */
  private events(events: readonly SseEvent[], ctx: WireContext): Json[][] {
    const n = ctx.messageId.replace(/^msg_scripted_/, "");
    const output: Json[] = []; // finished items, by output index
    const open = new Map<number, Json>(); // Messages block index → the item being streamed
    let sequence = 0;
    let inputTokens = 0;
    let cachedTokens = 0;
    let outputTokens = 0;
    let stopReason: string | null = null;
    const response = (status: string, extra: Json = {}): Json => ({
      id: `resp_scripted_${n}`,
      object: "response",
      created_at: 0,
      status,
      error: null,
      incomplete_details: null,
      model: ctx.model,
      output: [...output],
      parallel_tool_calls: true,
      store: false,
      usage: null,
      ...extra,
    });
    const emit = (type: string, fields: Json): Json => ({ type, sequence_number: sequence++, ...fields });

    return events.map((event): Json[] => {
      const d = event.data as Json;
      switch (event.event) {
        case "message_start":
          inputTokens = Number((d.message as { usage?: Json }).usage?.input_tokens ?? 0);
          cachedTokens = Number((d.message as { usage?: Json }).usage?.cache_read_input_tokens ?? 0);
          return [
            emit("response.created", { response: response("in_progress") }),
            emit("response.in_progress", { response: response("in_progress") }),
          ];
        case "content_block_start": {
          const block = d.content_block as Json;
          const index = output.length + open.size;
          if (block.type === "text") {
            const item = {
              id: `msg_scripted_${n}_${index}`,
              type: "message",
              status: "in_progress",
              role: "assistant",
            };
            open.set(Number(d.index), { ...item, output_index: index, text: "" });
            return [
              emit("response.output_item.added", { output_index: index, item: { ...item, content: [] } }),
              emit("response.content_part.added", {
                item_id: item.id,
                output_index: index,
                content_index: 0,
                part: { type: "output_text", text: "", annotations: [] },
              }),
            ];
          }
          if (block.type === "thinking") {
            const item = { id: `rs_scripted_${n}_${index}`, type: "reasoning", summary: [] };
            open.set(Number(d.index), { ...item, output_index: index, text: "", signature: "" });
            return [
              emit("response.output_item.added", { output_index: index, item: { ...item, encrypted_content: null } }),
              emit("response.reasoning_summary_part.added", {
                item_id: item.id,
                output_index: index,
                summary_index: 0,
                part: { type: "summary_text", text: "" },
              }),
            ];
          }
          if (block.type === "tool_use") {
            const item = {
              id: `fc_scripted_${n}_${index}`,
              type: "function_call",
              status: "in_progress",
              arguments: "",
              call_id: block.id,
              name: block.name,
            };
            open.set(Number(d.index), { ...item, output_index: index, text: "" });
            return [emit("response.output_item.added", { output_index: index, item })];
          }
          return []; // blocks of other types have no counterpart here
        }
        case "content_block_delta": {
          const item = open.get(Number(d.index));
          const delta = d.delta as Json;
          if (!item) return [];
          const at = { item_id: item.id, output_index: item.output_index };
          if (delta.type === "text_delta") {
            item.text += String(delta.text);
            return [emit("response.output_text.delta", { ...at, content_index: 0, delta: delta.text, logprobs: [] })];
          }
          if (delta.type === "thinking_delta") {
            item.text += String(delta.thinking);
            return [emit("response.reasoning_summary_text.delta", { ...at, summary_index: 0, delta: delta.thinking })];
          }
          if (delta.type === "signature_delta") item.signature = String(delta.signature);
          if (delta.type === "input_json_delta" && delta.partial_json !== "") {
            item.text += String(delta.partial_json);
            return [emit("response.function_call_arguments.delta", { ...at, delta: delta.partial_json })];
          }
          return [];
        }
        case "content_block_stop": {
          const item = open.get(Number(d.index));
          if (!item) return [];
          open.delete(Number(d.index));
          const at = { item_id: item.id, output_index: item.output_index };
          const { output_index, text, signature, ...fields } = item;
          if (item.type === "message") {
            const part = { type: "output_text", text, annotations: [], logprobs: [] };
            const done = { ...fields, status: "completed", content: [part] };
            output.push(done);
            return [
              emit("response.output_text.done", { ...at, content_index: 0, text, logprobs: [] }),
              emit("response.content_part.done", { ...at, content_index: 0, part }),
              emit("response.output_item.done", { output_index, item: done }),
            ];
          }
          if (item.type === "reasoning") {
            const summary = { type: "summary_text", text };
            const encrypted = seal(String(item.id), String(signature));
            const done = { ...fields, summary: [summary], encrypted_content: encrypted };
            output.push(done);
            return [
              emit("response.reasoning_summary_text.done", { ...at, summary_index: 0, text }),
              emit("response.reasoning_summary_part.done", { ...at, summary_index: 0, part: summary }),
              emit("response.output_item.done", { output_index, item: done }),
            ];
          }
          const done = { ...fields, status: "completed", arguments: text };
          output.push(done);
          return [
            emit("response.function_call_arguments.done", { ...at, arguments: text }),
            emit("response.output_item.done", { output_index, item: done }),
          ];
        }
        case "message_delta":
          stopReason = ((d.delta as Json).stop_reason as string | null) ?? null;
          outputTokens = Number((d.usage as Json).output_tokens ?? 0);
          return [];
        case "message_stop": {
          const ending = responsesEnding(stopReason);
          // the Responses API's input_tokens count the cached ones too; the details say how many
          const usage = {
            input_tokens: inputTokens + cachedTokens,
            input_tokens_details: { cached_tokens: cachedTokens },
            output_tokens: outputTokens,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: inputTokens + cachedTokens + outputTokens,
          };
          const final = response(ending.status, {
            incomplete_details: ending.reason === null ? null : { reason: ending.reason },
            usage,
          });
          return [
            emit(ending.status === "completed" ? "response.completed" : "response.incomplete", { response: final }),
          ];
        }
        case "error": {
          const error = d.error as Json;
          const fields = { type: error.type, code: error.type, message: error.message, param: null };
          return [emit("error", { error: fields })];
        }
        default:
          return []; // ping
      }
    });
  }

  /** The first problem the API would name in this input, in its words; `null` when none. */
  private inputProblem(input: unknown[], stateless: boolean): string | null {
    const calls = new Set<string>();
    const answered = new Set<string>();
    for (const item of input) {
      if (!isRecord(item)) return "Invalid type for 'input': expected an array of objects.";
      if (item.type === "function_call") calls.add(String(item.call_id));
      if (item.type === "function_call_output") {
        if (!calls.has(String(item.call_id))) {
          return `No tool call found for function call output with call_id ${String(item.call_id)}.`;
        }
        answered.add(String(item.call_id));
      }
      if (item.type === "reasoning" && typeof item.id === "string") {
        if (typeof item.encrypted_content !== "string") {
          if (!stateless) continue; // a stored item: the model keeps none, and takes it as it is
          return (
            `Item with id '${item.id}' not found. Items are not persisted when \`store\` is set to false. ` +
            "Try again with `store` set to true, or remove this item from your input."
          );
        }
        if (!verifies(item.id, item.encrypted_content)) {
          return `The encrypted content for item ${item.id} could not be verified.`;
        }
      }
    }
    const unanswered = [...calls].find((id) => !answered.has(id));
    return unanswered === undefined ? null : `No tool output found for function call ${unanswered}.`;
  }
}

/** The request as the Messages API would have it: system text, alternating turns, tool blocks. */
function toMessagesRequest(body: Json, input: Json[]): MessageCreateParams {
  const system: string[] = typeof body.instructions === "string" ? [body.instructions] : [];
  const messages: MessageParam[] = [];
  const add = (role: "user" | "assistant", block: Json) => {
    const last = messages.at(-1);
    if (last?.role === role && Array.isArray(last.content)) (last.content as unknown as Json[]).push(block);
    else messages.push({ role, content: [block] as unknown as MessageParam["content"] });
  };
  for (const item of input) {
    if (item.type === "function_call") {
      add("assistant", { type: "tool_use", id: item.call_id, name: item.name, input: parseObject(item.arguments) });
    } else if (item.type === "function_call_output") {
      add("user", { type: "tool_result", tool_use_id: String(item.call_id), ...readResult(textOf(item.output)) });
    } else if (item.type === "reasoning") {
      const summary = Array.isArray(item.summary) ? textOf(item.summary) : "";
      add("assistant", { type: "thinking", thinking: summary, signature: String(item.encrypted_content ?? "") });
    } else if (item.role === "system" || item.role === "developer") {
      system.push(textOf(item.content));
    } else if (item.role === "user" || item.role === "assistant") {
      for (const text of textParts(item.content)) add(item.role, { type: "text", text });
    }
  }
  const tools = (Array.isArray(body.tools) ? (body.tools as Json[]) : [])
    .filter((tool) => tool.type === "function")
    .map((tool) => ({ name: String(tool.name), description: tool.description, input_schema: tool.parameters }));
  return {
    model: String(body.model),
    max_tokens: Number(body.max_output_tokens ?? 4096),
    ...(system.length > 0 ? { system: system.join("\n\n") } : {}),
    messages,
    ...(tools.length > 0 ? { tools: tools as MessageCreateParams["tools"] } : {}),
    stream: body.stream === true,
  } as MessageCreateParams;
}

function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
