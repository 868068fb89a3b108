/**
 * A Chat Completions stream, read chunk by chunk into one `chat.completion`.
 *
 * Text is handed on as it arrives. A tool call arrives in fragments: the first names its `index`,
 * `id` and function name, the next ones add pieces of `arguments` under the same `index` (several
 * calls interleave). The pieces are only joined here; `messageFromChat` parses each call's
 * arguments once, from the complete text. A stream is complete when a `finish_reason` arrived:
 * one that ends without it was cut, and is an error, never an answer.
 */

import type { StreamProgress } from "@harness/s03-streaming";
import { StreamError, type StreamEvent } from "@harness/s03-streaming";
import type { Emit } from "@harness/shared";
import type { ChatCompletion, ChatCompletionChunk } from "openai/resources/chat/completions";

/** A tool call being assembled from its fragments. */
interface PartialCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * Read `stream` to its end and return the completion it adds up to (`reasoning_content` kept).
 * Stops reading once `signal` aborts.
 * Contract: throws `StreamError` when the stream ends without a `finish_reason`; sets
 * `progress.consumed` once content (text, reasoning or a tool call) has arrived.
 */
export async function readChatStream(
  stream: AsyncIterable<ChatCompletionChunk>,
  emit: Emit<StreamEvent> = () => {},
  progress: StreamProgress = { opened: true, consumed: false },
  signal?: AbortSignal,
): Promise<ChatCompletion> {
  let first: ChatCompletionChunk | undefined;
  let content = "";
  let reasoning = "";
  let refusal = "";
  const calls: PartialCall[] = [];
  let finish: string | null = null;
  let usage: ChatCompletion["usage"];
  for await (const chunk of stream) {
    if (signal?.aborted) break; // what the SDK had buffered is not shown
    if (!first) {
      first = chunk;
      emit({ type: "stream_start" });
    }
    if (chunk.usage) usage = chunk.usage;
    const choice = chunk.choices?.find((c) => (c.index ?? 0) === 0);
    if (!choice) continue; // the usage chunk has no choices
    const delta = (choice.delta ?? {}) as ChatCompletionChunk.Choice.Delta & Record<string, unknown>;
    if (typeof delta.content === "string" && delta.content !== "") {
      progress.consumed = true;
      content += delta.content;
      emit({ type: "text", text: delta.content });
    }
    // DeepSeek and xAI send `reasoning_content`; vLLM and others send `reasoning`
    const thought = delta.reasoning_content ?? delta.reasoning;
    if (typeof thought === "string" && thought !== "") {
      progress.consumed = true;
      reasoning += thought;
    }
    if (typeof delta.refusal === "string") refusal += delta.refusal;
    for (const fragment of delta.tool_calls ?? []) {
      progress.consumed = true;
      // without an index (servers that send each call whole), a new id starts a new call
      const opened = calls.length - 1;
      const index =
        fragment.index ?? (opened < 0 || (fragment.id && fragment.id !== calls[opened].id) ? opened + 1 : opened);
      calls[index] ??= { id: "", name: "", arguments: "" };
      const call = calls[index];
      if (fragment.id && !call.id) call.id = fragment.id;
      if (fragment.function?.name && !call.name) call.name = fragment.function.name;
      if (fragment.function?.arguments) call.arguments += fragment.function.arguments;
    }
    if (choice.finish_reason) finish = choice.finish_reason;
  }
  if (finish === null) throw new StreamError("the stream ended without a finish_reason");
  const message = {
    role: "assistant" as const,
    content: content || null,
    refusal: refusal || null,
    ...(reasoning ? { reasoning_content: reasoning } : {}),
    ...(calls.length > 0
      ? {
          tool_calls: calls.filter(Boolean).map((call, i) => ({
            // some servers send no id: one is made, unique to this response, in the characters every API takes
            id: call.id || `call_${(first?.id || crypto.randomUUID()).replace(/[^A-Za-z0-9_-]/g, "_")}_${i}`,
            type: "function" as const,
            function: { name: call.name, arguments: call.arguments },
          })),
        }
      : {}),
  };
  return {
    id: first?.id ?? "",
    object: "chat.completion",
    created: first?.created ?? 0,
    model: first?.model ?? "",
    choices: [{ index: 0, message, finish_reason: finish as ChatCompletion.Choice["finish_reason"], logprobs: null }],
    ...(usage ? { usage } : {}),
  };
}
