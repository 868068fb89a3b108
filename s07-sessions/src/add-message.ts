/**
 * One way a message joins a history, used twice: by the loop as the conversation happens, and by
 * the loader as it reads the transcript back. So a history rebuilt from disk is the history that
 * was in memory, message for message.
 */
import type { ContentBlockParam, MessageParam } from "@anthropic-ai/sdk/resources/messages";

/**
 * Add `message` to `messages`: a new message, or, when the last one has the same role, more
 * blocks in it (the model's continuation after `pause_turn`, as `appendAssistantTurn` does; a
 * prompt after an unanswered one, as `appendUserText` does). Roles keep alternating.
 */
export function addMessage(messages: MessageParam[], message: MessageParam): void {
  const last = messages.at(-1);
  if (last?.role !== message.role) {
    messages.push(message);
    return;
  }
  last.content = [...blocksOf(last), ...blocksOf(message)];
}

/** A message's content as blocks: a string is one text block, none when it is empty. */
function blocksOf(message: MessageParam): ContentBlockParam[] {
  if (typeof message.content !== "string") return message.content;
  return message.content === "" ? [] : [{ type: "text", text: message.content }];
}
