/**
 * The course's request in Chat Completions' words: the system prompt as the first message, each
 * tool as a `function`, and the history turned inside out where the two formats differ. A user
 * message of tool results becomes one `tool` message per result (they must come first, right
 * after the assistant message that asked); an assistant message's tool_use blocks become its
 * `tool_calls`, each input written back as the JSON text `arguments` holds; DeepSeek's
 * reasoning goes back as `reasoning_content`.
 *
 * Left out: images and documents (the course's tools return text), `tool_choice`, sampling options.
 */
import type {
  ContentBlockParam,
  MessageParam,
  TextBlockParam,
  ToolResultBlockParam,
} from "@anthropic-ai/sdk/resources/messages";
import type {
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
} from "openai/resources/chat/completions";
import { isReasoningBlock } from "../history-for-format.ts";
import type { TurnRequest } from "../provider-adapter.ts";

/**
 * Build the streamed Chat Completions request for `request`, whose history holds only what this
 * format reads (`historyForFormat` ran first).
 * Contract: the output budget goes as `max_completion_tokens` (OpenAI's field; `max_tokens` is
 * refused by its reasoning models), and usage is asked for at the end of the stream.
 */
export function toChatRequest(request: TurnRequest): ChatCompletionCreateParamsStreaming {
  const system = systemText(request.system);
  const messages: ChatCompletionMessageParam[] = system ? [{ role: "system", content: system }] : [];
  for (const message of request.messages) messages.push(...chatMessages(message));
  return {
    model: request.model,
    messages,
    ...(request.tools?.length
      ? {
          tools: request.tools.map((tool) => {
            const t = tool as { name: string; description?: string; input_schema: Record<string, unknown> };
            return {
              type: "function" as const,
              function: { name: t.name, description: t.description, parameters: t.input_schema },
            };
          }),
        }
      : {}),
    max_completion_tokens: request.max_tokens,
    stream: true,
    stream_options: { include_usage: true },
  };
}

/** One course message as Chat Completions messages (a user message of results may become several). */
function chatMessages(message: MessageParam): ChatCompletionMessageParam[] {
  const blocks: ContentBlockParam[] =
    typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
  if (message.role === "user") {
    // tool results first, one `tool` message each, then whatever the user wrote
    const results: ChatCompletionMessageParam[] = blocks.flatMap((block) =>
      block.type === "tool_result"
        ? [{ role: "tool" as const, tool_call_id: block.tool_use_id, content: resultText(block) }]
        : [],
    );
    // the user's text blocks as parts of one message: a summary and the prompt after it stay apart
    const texts = blocks.flatMap((block) => (block.type === "text" && block.text ? [block.text] : []));
    if (texts.length === 0) return results;
    const content = texts.length === 1 ? texts[0] : texts.map((text) => ({ type: "text" as const, text }));
    return [...results, { role: "user", content }];
  }
  const calls: ChatCompletionMessageToolCall[] = blocks.flatMap((block) =>
    block.type === "tool_use"
      ? [
          {
            id: block.id,
            type: "function" as const,
            function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) },
          },
        ]
      : [],
  );
  const reasoning = (blocks as unknown[]).filter(isReasoningBlock).map((block) => block.text);
  const text = textOf(blocks);
  return [
    {
      role: "assistant",
      content: text || (calls.length > 0 ? null : ""),
      ...(calls.length > 0 ? { tool_calls: calls } : {}),
      // DeepSeek wants its reasoning back on the turn that had it (and refuses a tool-call turn without it)
      ...(reasoning.length > 0 ? { reasoning_content: reasoning.join("") } : {}),
    } as ChatCompletionMessageParam,
  ];
}

/** The system prompt as one string. */
export function systemText(system: TurnRequest["system"]): string {
  if (system === undefined) return "";
  return typeof system === "string" ? system : system.map((block: TextBlockParam) => block.text).join("\n\n");
}

/** The text blocks of a message, joined. */
function textOf(blocks: readonly ContentBlockParam[]): string {
  return blocks
    .filter((block): block is TextBlockParam => block.type === "text")
    .map((block) => block.text)
    .join("\n");
}

/**
 * A tool result as the text these formats send (the course's tools return text; other parts are
 * named, not sent). They have no `is_error`: a failed result says so in its first word, as the
 * course's coded errors (`Error [denied]: …`) already do, else with `Error: ` put before it.
 */
export function resultText(block: ToolResultBlockParam): string {
  const content = block.content;
  const text =
    typeof content === "string"
      ? content
      : (content ?? [])
          .map((part: { type?: string; text?: string }) =>
            part.type === "text" ? (part.text ?? "") : `[${part.type} omitted]`,
          )
          .join("\n");
  return block.is_error && !/^Error\b/.test(text) ? `Error: ${text}` : text;
}
