/**
 * Where a plan is kept between processes: nowhere but the history. Every list the model wrote is
 * a `todo_write` call in it, and s07's transcript keeps every call with its result; so the list a
 * session left is the input of its last call that was answered without an error. A refused call
 * changed nothing, and a call a hard stop left unanswered (s07 answers it "interrupted" on load)
 * cannot be known to have run: both are passed over.
 */
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { parseTodos, type Todo } from "./parse-todos.ts";

/** The tool's name, in the calls and in the tool map. */
export const TODO_WRITE = "todo_write";

/**
 * The list the last accepted `todo_write` call in `history` wrote; empty when there is none.
 * Contract: reads only; a call whose result is missing or an error does not count.
 */
export function lastWrittenList(history: readonly MessageParam[]): Todo[] {
  let list: Todo[] = [];
  for (const [i, message] of history.entries()) {
    if (message.role !== "assistant" || typeof message.content === "string") continue;
    const answers = history[i + 1]?.content;
    for (const block of message.content) {
      if (block.type !== "tool_use" || block.name !== TODO_WRITE) continue;
      const result = Array.isArray(answers)
        ? answers.find((answer) => answer.type === "tool_result" && answer.tool_use_id === block.id)
        : undefined;
      if (result?.type !== "tool_result" || result.is_error) continue; // refused, or never answered
      const parsed = parseTodos(block.input);
      if (parsed.ok) list = parsed.value;
    }
  }
  return list;
}
