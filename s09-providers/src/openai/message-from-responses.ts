/**
 * A Responses API answer read into the course's turn: a `Message` in the Messages API's shape.
 *
 * | Responses API                                        | the course's turn                                   |
 * | ---------------------------------------------------- | --------------------------------------------------- |
 * | a `message` item's `output_text` parts               | `text` blocks                                       |
 * | `function_call` items (`call_id`, `name`)            | `tool_use` blocks with id = `call_id`, in order      |
 * | `arguments` (JSON text)                              | `input`, parsed once; text that does not parse stays a string: an invalid-arguments result, never a call |
 * | `reasoning` items (with `encrypted_content`)         | `reasoning` blocks tagged `openai-responses`, the item kept whole to go back unchanged |
 * | a `refusal` part                                     | a `text` block, and the stop reason `refusal`       |
 * | `status` and `incomplete_details.reason`             | `stop_reason`, by `RESPONSES_STOP_REASONS`          |
 * | `usage.input_tokens` / `output_tokens`               | `usage.input_tokens` / `output_tokens`              |
 * | `usage.input_tokens_details.cached_tokens`           | with `cacheReads` (s10): `cache_read_input_tokens`, taken out of `input_tokens` |
 */
import type { Message } from "@anthropic-ai/sdk/resources/messages";
import { parseToolInput } from "@harness/s03-streaming";
import type { Response } from "openai/resources/responses/responses";
import type { ReasoningBlock } from "../history-for-format.ts";
import { openAiUsage } from "./message-from-chat.ts";

/**
 * Why an `incomplete` response stopped → the course's stop reason. Any other reason, and any status
 * but `completed`, is read as `max_tokens`: the response was cut, so none of its calls runs.
 */
export const RESPONSES_STOP_REASONS: Readonly<Record<string, string>> = {
  max_output_tokens: "max_tokens", // cut by the output budget: a call may be half written
  content_filter: "refusal", // the provider withheld the rest: nothing from this turn runs
};

/**
 * Read one response (a whole one, or what `readResponsesStream` assembled) as a turn.
 * Contract: never throws, whatever the response holds; output items of other types (built-in
 * tools the course does not offer) are left out.
 */
export function messageFromResponse(response: Response, { cacheReads = false } = {}): Message {
  const content: unknown[] = [];
  let refused = false;
  let reasoning: ReasoningBlock | undefined; // the last reasoning item: the calls after it are paired with it
  for (const item of Array.isArray(response?.output) ? response.output : []) {
    if (item?.type === "reasoning") {
      const text = (item.summary ?? []).map((part) => part.text).join("\n");
      const whole = item as unknown as Record<string, unknown>;
      reasoning = { type: "reasoning", format: "openai-responses", text, item: whole };
      content.push(reasoning);
    } else if (item?.type === "message") {
      for (const part of item.content ?? []) {
        if (part.type === "output_text" && part.text !== "") content.push({ type: "text", text: part.text });
        if (part.type === "refusal") {
          refused = true;
          content.push({ type: "text", text: part.refusal });
        }
      }
    } else if (item?.type === "function_call") {
      if (reasoning && item.id) reasoning.calls = { ...reasoning.calls, [item.call_id]: item.id };
      // the one parse of a call's arguments; text that does not parse stays a string
      content.push({
        type: "tool_use",
        id: item.call_id,
        name: item.name,
        input: parseToolInput(item.arguments ?? ""),
      });
    }
  }
  const calls = content.some((block) => (block as { type: string }).type === "tool_use");
  const stop =
    response?.status === "completed"
      ? refused
        ? "refusal"
        : calls
          ? "tool_use"
          : "end_turn"
      : (RESPONSES_STOP_REASONS[response?.incomplete_details?.reason ?? ""] ?? "max_tokens");
  return {
    id: response?.id ?? "",
    type: "message",
    role: "assistant",
    model: response?.model ?? "",
    content,
    stop_reason: stop,
    stop_sequence: null,
    usage: openAiUsage(
      response?.usage?.input_tokens,
      response?.usage?.output_tokens,
      cacheReads ? (response?.usage?.input_tokens_details?.cached_tokens ?? 0) : undefined,
    ),
  } as unknown as Message;
}
