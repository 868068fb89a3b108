/**
 * The plan through a compaction. s08's summary is the model's own words about the past, and the
 * calls that wrote the list are among what it replaces: the list may come out reworded, or not at
 * all. So right after the summary, in the same user message, the harness restates the list word
 * for word, unless the history kept after the summary still holds the call that wrote it.
 *
 * It is a listener on the window's `context` event, the one listener that writes into the
 * history: main.ts hands it to the window ahead of every other listener, so s08's boundary (what
 * a resumed session loads) is written with the list in it.
 */
import type { MessageParam, TextBlockParam } from "@anthropic-ai/sdk/resources/messages";
import type { ContextEvent } from "@harness/s08-compaction";
import { lastWrittenList } from "./last-written-list.ts";
import type { Todo } from "./parse-todos.ts";
import type { TodoList } from "./todo-list.ts";

/** The listener: after each compaction, the list restated after the summary. */
export function restatePlan(list: TodoList) {
  return (event: { type: string }): void => {
    const heard = event as ContextEvent;
    if (heard.type !== "context" || heard.change.kind !== "compacted") return;
    const todos = list.items;
    if (todos.length === 0) return;
    if (JSON.stringify(lastWrittenList(heard.messages)) === JSON.stringify(todos)) return; // still said
    const [opening] = heard.messages as MessageParam[]; // the summary's user message, its first block the summary
    const blocks = typeof opening.content === "string" ? [text(opening.content)] : opening.content;
    opening.content = [blocks[0], text(restatement(todos)), ...blocks.slice(1)];
  };
}

/** The restatement's text: the list as the last todo_write left it, word for word. */
export function restatement(todos: readonly Todo[]): string {
  return (
    "<system-reminder>\nYour todo list, as your last todo_write left it (the summary may not have kept it):\n" +
    `${JSON.stringify(todos)}\n</system-reminder>`
  );
}

function text(value: string): TextBlockParam {
  return { type: "text", text: value };
}
