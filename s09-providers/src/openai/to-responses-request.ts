/**
 * The course's request in the Responses API's words: the system prompt as `instructions`, each
 * tool as a `function` (not strict: the course's schemas are plain JSON Schema), and the history
 * as a list of items. An assistant turn becomes its items in order: its reasoning item (sent back
 * exactly as it came), its text, a `function_call` per tool_use; a tool result becomes a
 * `function_call_output` with the call's `call_id`.
 *
 * The request is stateless (`store: false`): the harness keeps the history, the server keeps
 * nothing, so reasoning can only continue from the `encrypted_content` the request asks for.
 *
 * Left out: `previous_response_id` (a server-side history), built-in tools, images.
 */
import type { ContentBlockParam, MessageParam } from "@anthropic-ai/sdk/resources/messages";
import type { ResponseCreateParamsStreaming, ResponseInputItem } from "openai/resources/responses/responses";
import { isReasoningBlock } from "../history-for-format.ts";
import type { TurnRequest } from "../provider-adapter.ts";
import { resultText, systemText } from "./to-chat-request.ts";

/** Build the streamed Responses request for `request`, whose history holds only what this format reads. */
export function toResponsesRequest(request: TurnRequest): ResponseCreateParamsStreaming {
  const system = systemText(request.system);
  return {
    model: request.model,
    ...(system ? { instructions: system } : {}),
    input: request.messages.flatMap(inputItems),
    ...(request.tools?.length
      ? {
          tools: request.tools.map((tool) => {
            const t = tool as { name: string; description?: string; input_schema: Record<string, unknown> };
            return {
              type: "function" as const,
              name: t.name,
              description: t.description,
              parameters: t.input_schema,
              strict: false,
            };
          }),
        }
      : {}),
    max_output_tokens: request.max_tokens,
    store: false,
    include: ["reasoning.encrypted_content"],
    stream: true,
  };
}

/** One course message as Responses input items, in order. */
function inputItems(message: MessageParam): ResponseInputItem[] {
  const blocks: ContentBlockParam[] =
    typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
  const items: ResponseInputItem[] = [];
  if (message.role === "user") {
    for (const block of blocks) {
      if (block.type === "tool_result") {
        items.push({ type: "function_call_output", call_id: block.tool_use_id, output: resultText(block) });
      }
    }
    // the user's text blocks as parts of one message: a summary and the prompt after it stay apart
    const texts = blocks.flatMap((block) => (block.type === "text" && block.text ? [block.text] : []));
    if (texts.length === 1) items.push({ role: "user", content: texts[0] });
    if (texts.length > 1) items.push({ role: "user", content: texts.map((text) => ({ type: "input_text", text })) });
    return items;
  }
  let paired: Record<string, string> = {}; // the item ids of the calls after this turn's reasoning
  for (const block of blocks) {
    const tagged: unknown = block;
    if (isReasoningBlock(tagged)) {
      if (tagged.item) items.push(tagged.item as unknown as ResponseInputItem);
      paired = { ...paired, ...tagged.calls };
    } else if (block.type === "text") items.push({ role: "assistant", content: block.text });
    else if (block.type === "tool_use") {
      items.push({
        type: "function_call",
        call_id: block.id,
        name: block.name,
        arguments: JSON.stringify(block.input ?? {}),
        ...(paired[block.id] ? { id: paired[block.id] } : {}),
      });
    }
  }
  return items;
}
