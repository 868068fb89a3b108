/**
 * History validity: the rule COURSE.md states, as a check every test runs after a loop ends.
 *
 * The Messages API rejects a history where a `tool_use` goes unanswered, where a `tool_result`
 * answers nothing, or where roles do not alternate. A harness that leaves such a history behind
 * (after an error, a spent budget, or Ctrl-C) cannot send its next request.
 */
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";

/**
 * List what is wrong with a history, in the order found; empty when it is valid.
 *
 * Checked: the first message is the user's; roles alternate; no message is empty (except a
 * final assistant message, which the API reads as a prefill); no text block is empty or
 * whitespace only (the API rejects both); every `tool_use` id is unique and answered by exactly
 * one `tool_result`, all of them in the single user message that follows, before any other block
 * there; no `tool_result` answers an id the previous assistant message did not ask for.
 */
export function historyProblems(messages: readonly MessageParam[]): string[] {
  const problems: string[] = [];
  const seenToolUseIds = new Set<string>();
  if (!Array.isArray(messages)) return ["the history is not an array"];
  if (messages.length === 0) return ["the history is empty"];
  messages.forEach((message, i) => {
    const where = `message ${i} (${message?.role})`;
    if (message?.role !== "user" && message?.role !== "assistant") {
      problems.push(`${where}: role must be user or assistant`);
      return;
    }
    const expected = i % 2 === 0 ? "user" : "assistant";
    if (message.role !== expected)
      problems.push(`${where}: expected a ${expected} message (roles alternate, user first)`);
    const blocks = blocksOf(message);
    const isFinalAssistant = i === messages.length - 1 && message.role === "assistant";
    if (blocks.length === 0 && !isFinalAssistant) problems.push(`${where}: empty content`);
    if (Array.isArray(message.content) && blocks.length < message.content.length)
      problems.push(`${where}: a content block is not an object`);
    for (const block of blocks) {
      if (block.type === "text" && (typeof block.text !== "string" || block.text.trim() === "")) {
        problems.push(`${where}: empty text block (or whitespace only)`);
      }
    }

    if (message.role === "assistant") {
      const ids = toolUseIds(blocks);
      for (const id of ids) {
        if (seenToolUseIds.has(id)) problems.push(`${where}: tool_use id ${id} is used twice`);
        seenToolUseIds.add(id);
      }
      if (ids.length === 0) return;
      const next = messages[i + 1];
      if (next?.role !== "user") {
        problems.push(`${where}: tool_use ${ids.join(", ")} not answered by a following user message`);
        return;
      }
      const answers = toolResultIds(blocksOf(next));
      for (const id of ids) {
        const n = answers.filter((a) => a === id).length;
        if (n !== 1) problems.push(`${where}: tool_use ${id} answered ${n} times in message ${i + 1}`);
      }
    } else {
      const answers = toolResultIds(blocks);
      if (answers.length === 0) return;
      const asked = new Set(i > 0 ? toolUseIds(blocksOf(messages[i - 1])) : []);
      for (const id of answers) {
        if (!asked.has(id)) problems.push(`${where}: tool_result ${id} answers no tool_use of message ${i - 1}`);
      }
      const firstOther = blocks.findIndex((b) => b.type !== "tool_result");
      const lastResult = blocks.findLastIndex((b) => b.type === "tool_result");
      if (firstOther !== -1 && firstOther < lastResult) problems.push(`${where}: tool_result blocks must come first`);
    }
  });
  return problems;
}

/** True when the history breaks none of the rules `historyProblems` checks. */
export function isValidHistory(messages: readonly MessageParam[]): boolean {
  return historyProblems(messages).length === 0;
}

type LooseBlock = { type?: unknown; text?: unknown; id?: unknown; tool_use_id?: unknown };

function blocksOf(message: MessageParam | undefined): LooseBlock[] {
  if (!message) return [];
  if (typeof message.content === "string")
    return message.content === "" ? [] : [{ type: "text", text: message.content }];
  if (!Array.isArray(message.content)) return [];
  return (message.content as unknown[]).filter((b): b is LooseBlock => typeof b === "object" && b !== null);
}

function toolUseIds(blocks: LooseBlock[]): string[] {
  return blocks.filter((b) => b.type === "tool_use").map((b) => String(b.id));
}

function toolResultIds(blocks: LooseBlock[]): string[] {
  return blocks.filter((b) => b.type === "tool_result").map((b) => String(b.tool_use_id));
}
