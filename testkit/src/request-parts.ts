/**
 * What a test reads off a request the scripted model received: the tool results it carried back,
 * their text, and the tools it offered.
 */
import type { MessageCreateParams, MessageParam, ToolResultBlockParam } from "@anthropic-ai/sdk/resources/messages";

/** The tool_result blocks of a request's last message. */
export function lastResults(body: MessageCreateParams): ToolResultBlockParam[] {
  const last = body.messages.at(-1) as MessageParam;
  return typeof last.content === "string" ? [] : last.content.flatMap((b) => (b.type === "tool_result" ? [b] : []));
}

/** The text of a tool_result block. */
export function toolResultText(block: ToolResultBlockParam): string {
  const { content } = block;
  if (typeof content === "string") return content;
  return (content ?? []).flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");
}

/** The names of the tools a request offered. */
export function toolNames(body: MessageCreateParams): string[] {
  return (body.tools ?? []).flatMap((tool) => ("name" in tool ? [tool.name] : []));
}
