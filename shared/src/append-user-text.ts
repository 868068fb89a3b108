/**
 * Add the user's words to a history without breaking it.
 */
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";

/**
 * Append `text` as the user's: a new user message after an assistant message, or one more text
 * block in the last user message when the history already ends with one (a run that failed
 * before the model answered, or tool results the model never read). Either way roles keep
 * alternating and nothing already in the history is dropped.
 */
export function appendUserText(messages: MessageParam[], text: string): void {
  const last = messages.at(-1);
  if (last?.role !== "user") {
    messages.push({ role: "user", content: text });
    return;
  }
  const blocks = typeof last.content === "string" ? [{ type: "text" as const, text: last.content }] : last.content;
  last.content = [...blocks, { type: "text", text }];
}
