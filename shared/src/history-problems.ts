/**
 * History validity: the rule COURSE.md states, as a check every test runs after a loop ends and the
 * scripted model makes before it answers.
 *
 * The Messages API rejects a history where a `tool_use` goes unanswered, where a `tool_result`
 * answers nothing, or where roles do not alternate. A harness that leaves such a history behind
 * (after an error, a spent budget, or Ctrl-C) cannot send its next request. Each problem here is
 * worded as the API words its 400 `invalid_request_error` for it, so the scripted model refuses
 * with the real text and a failing test names the error a reader would meet.
 *
 * Left out: what the API checks beyond the history (tools, images, thinking signatures; the
 * request's shape, which the scripted model's wire checks), and its rule for a prefill (no
 * trailing whitespace): a loop's history ends with an answer it never sends back as it is. One difference on purpose: the API today merges consecutive turns of one role;
 * the course does not (COURSE.md: roles alternate), so two in a row get the error the API gave
 * for them before it merged them.
 */
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";

/**
 * List what is wrong with a history, in the order the messages are read; empty when it is valid.
 *
 * Checked: the first message is the user's; roles alternate; no message is empty (except a
 * final assistant message, which the API reads as a prefill); no text block is empty or
 * whitespace only; every `tool_use` id is unique and
 * answered by exactly one `tool_result`, all of them at the start of the single user message that
 * follows; no `tool_result` answers an id the previous assistant message did not ask for.
 */
export function historyProblems(messages: readonly MessageParam[]): string[] {
  if (messages.length === 0) return ["messages: at least one message is required"];
  const problems: string[] = [];
  const seenToolUseIds = new Set<string>();
  let previousRole: string | undefined;
  messages.forEach((message, i) => {
    if (i === 0 && message.role !== "user") problems.push('messages: first message must use the "user" role');
    if (message.role === previousRole) {
      problems.push(
        `messages: roles must alternate between "user" and "assistant", but found multiple "${message.role}" roles in a row`,
      );
    }
    previousRole = message.role;

    const blocks = blocksOf(message);
    const isFinal = i === messages.length - 1;
    if (blocks.length === 0 && !(isFinal && message.role === "assistant")) {
      problems.push(
        `messages.${i}: all messages must have non-empty content except for the optional final assistant message`,
      );
    }
    for (const block of blocks) {
      if (block.type !== "text") continue;
      if (typeof block.text !== "string" || block.text === "")
        problems.push("messages: text content blocks must be non-empty");
      else if (block.text.trim() === "")
        problems.push("messages: text content blocks must contain non-whitespace text");
    }

    if (message.role === "assistant") {
      const asked = blocks.flatMap((block, k) => (block.type === "tool_use" ? [{ id: String(block.id), k }] : []));
      for (const { id, k } of asked) {
        if (seenToolUseIds.has(id)) problems.push(`messages.${i}.content.${k}: \`tool_use\` ids must be unique`);
        seenToolUseIds.add(id);
      }
      // the results must open the next message: the API reads no further than the first other block
      const next = messages[i + 1];
      const opening = next?.role === "user" ? leadingResultIds(blocksOf(next)) : new Set<string>();
      const missing = [...new Set(asked.map((a) => a.id))].filter((id) => !opening.has(id));
      if (missing.length > 0) {
        problems.push(
          `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ")}. ` +
            "Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
        );
      }
      return;
    }
    const results = blocks.flatMap((block, k) =>
      block.type === "tool_result" ? [{ id: String(block.tool_use_id), k }] : [],
    );
    if (results.length === 0) return;
    const previous = i > 0 ? messages[i - 1] : undefined;
    const asked = new Set(previous?.role === "assistant" ? toolUseIds(blocksOf(previous)) : []);
    if (asked.size === 0) {
      problems.push(
        `messages.${i}: \`tool_result\` block(s) provided when previous message does not contain any \`tool_use\` blocks`,
      );
      return;
    }
    const answered = new Set<string>();
    for (const { id, k } of results) {
      if (!asked.has(id)) {
        problems.push(
          `messages.${i}.content.${k}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. ` +
            "Each `tool_result` block must have a corresponding `tool_use` block in the previous message.",
        );
      } else if (answered.has(id)) {
        problems.push(
          `messages.${i}.content.${k}: each tool_use must have a single result. Found multiple \`tool_result\` blocks with id: ${id}`,
        );
      }
      answered.add(id);
    }
  });
  return problems;
}

type LooseBlock = { type?: unknown; text?: unknown; id?: unknown; tool_use_id?: unknown };

/** The content as blocks: a string is one text block (none when it is empty). */
function blocksOf(message: MessageParam): LooseBlock[] {
  if (typeof message.content === "string")
    return message.content === "" ? [] : [{ type: "text", text: message.content }];
  return Array.isArray(message.content) ? (message.content as LooseBlock[]) : [];
}

function toolUseIds(blocks: LooseBlock[]): string[] {
  return blocks.filter((b) => b.type === "tool_use").map((b) => String(b.id));
}

/** The ids of the tool_result blocks a message opens with, up to its first other block. */
function leadingResultIds(blocks: LooseBlock[]): Set<string> {
  const end = blocks.findIndex((b) => b.type !== "tool_result");
  return new Set((end === -1 ? blocks : blocks.slice(0, end)).map((b) => String(b.tool_use_id)));
}
