/**
 * A Chat Completions answer read into the course's turn: a `Message` in the Messages API's shape,
 * the one `AgentTurn.fromResponse` reads. The mapping is the whole lesson of this format, so it is
 * written as data.
 *
 * | Chat Completions                               | the course's turn                                   |
 * | ---------------------------------------------- | --------------------------------------------------- |
 * | `message.content`                              | a `text` block                                      |
 * | `message.tool_calls[]` (id, function.name)     | `tool_use` blocks, in order (parallel calls too)    |
 * | `function.arguments` (JSON text)               | `input`, parsed once; text that does not parse stays a string: an invalid-arguments result, never a call |
 * | `message.reasoning_content` (DeepSeek, xAI)    | a `reasoning` block tagged `openai-chat`, sent back to this format only |
 * | `message.refusal`                              | a `text` block, and the stop reason `refusal`       |
 * | `finish_reason`                                | `stop_reason`, by `CHAT_STOP_REASONS`               |
 * | `usage.prompt_tokens` / `completion_tokens`    | `usage.input_tokens` / `output_tokens`              |
 * | `usage.prompt_tokens_details.cached_tokens`    | with `cacheReads` (s10): `cache_read_input_tokens`, taken out of `input_tokens` |
 */
import type { Message } from "@anthropic-ai/sdk/resources/messages";
import { parseToolInput } from "@harness/s03-streaming";
import type { ChatCompletion } from "openai/resources/chat/completions";
import type { ReasoningBlock } from "../history-for-format.ts";

/**
 * `finish_reason` → the course's stop reason, which `stopReasonFor` reads. A reason not listed
 * goes on as it came: like any stop reason never seen, it ends the loop unless the turn asks for
 * tools.
 */
export const CHAT_STOP_REASONS: Readonly<Record<string, string>> = {
  stop: "end_turn", // the model finished its answer
  tool_calls: "tool_use", // it asked for tools: run them, send the results
  function_call: "tool_use", // the same, in the API's older words
  length: "max_tokens", // cut by the output budget: a call may be half written, so none runs
  content_filter: "refusal", // the provider withheld the rest: nothing from this turn runs
};

/** A completion's message as this code reads it: every field may be missing or of another type. */
interface LooseMessage {
  content?: unknown;
  refusal?: unknown;
  reasoning_content?: unknown;
  reasoning?: unknown;
  tool_calls?: unknown;
}

/** One of its tool calls, read as loosely. */
interface LooseCall {
  id?: unknown;
  type?: unknown;
  function?: { name?: unknown; arguments?: unknown };
}

/**
 * Read one completion (a whole response, or what `readChatStream` assembled) as a turn.
 * Contract: never throws, whatever the completion holds; only the first choice is read.
 */
export function messageFromChat(completion: ChatCompletion, { cacheReads = false } = {}): Message {
  const choice = completion?.choices?.[0];
  const message = (choice?.message ?? {}) as unknown as LooseMessage;
  const content: unknown[] = [];
  const reasoning = message.reasoning_content ?? message.reasoning;
  if (typeof reasoning === "string" && reasoning !== "") {
    content.push({ type: "reasoning", format: "openai-chat", text: reasoning } satisfies ReasoningBlock);
  }
  if (typeof message.content === "string" && message.content !== "") {
    content.push({ type: "text", text: message.content });
  }
  const refused = typeof message.refusal === "string" && message.refusal !== "";
  if (refused) content.push({ type: "text", text: message.refusal });
  const calls: LooseCall[] = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  for (const call of calls) {
    if (call?.type !== undefined && call.type !== "function") continue; // custom tools: the course offers none
    const fn = call?.function ?? {};
    // the one parse of a call's arguments; text that does not parse stays a string
    const input = parseToolInput(typeof fn.arguments === "string" ? fn.arguments : "");
    content.push({ type: "tool_use", id: call?.id, name: fn.name, input });
  }
  const finish = choice?.finish_reason ?? null;
  const stop = refused ? "refusal" : finish === null ? null : (CHAT_STOP_REASONS[finish] ?? finish);
  return {
    id: completion?.id ?? "",
    type: "message",
    role: "assistant",
    model: completion?.model ?? "",
    content,
    stop_reason: stop,
    stop_sequence: null,
    usage: openAiUsage(
      completion?.usage?.prompt_tokens,
      completion?.usage?.completion_tokens,
      cacheReads ? completion?.usage?.prompt_tokens_details?.cached_tokens : undefined,
    ),
  } as unknown as Message;
}

/**
 * The usage in the Messages API's words: OpenAI's input counts include the cached tokens, the
 * Messages API's do not, so with `cached` (a count, when asked for) they are taken out and named.
 */
export function openAiUsage(input: unknown, output: unknown, cached?: unknown) {
  const count = (n: unknown) => (typeof n === "number" && n > 0 ? n : 0);
  if (cached === undefined) return { input_tokens: count(input), output_tokens: count(output) };
  const read = Math.min(count(cached), count(input));
  return { input_tokens: count(input) - read, output_tokens: count(output), cache_read_input_tokens: read };
}
