/**
 * The plan as the user sees it: a compact block each time the list changes (the item in progress
 * in its activeForm), and one line when the model is reminded of it. A listener, beside the view.
 */
import type { Todo } from "./parse-todos.ts";
import type { ReminderEvent } from "./reminders.ts";
import type { TodoEvent } from "./todo-list.ts";

/** The listener: hand it to the loop's `emit`; each line goes to `note`. */
export function todoLines(note: (line: string) => void) {
  return (event: { type: string }): void => {
    const heard = event as TodoEvent | ReminderEvent;
    if (heard.type === "todos") for (const line of describeTodos(heard.todos, heard.why)) note(line);
    if (heard.type === "todo_reminder") {
      note(
        `todos: reminded the model of ${heard.open} open item${heard.open === 1 ? "" : "s"} (no todo_write for ${heard.turns} turns)`,
      );
    }
  };
}

/** The block: a head line, then one line per item (`[x]` completed, `[>]` in progress, `[ ]` pending). */
export function describeTodos(todos: readonly Todo[], why: TodoEvent["why"] = "written"): string[] {
  const done = todos.filter((item) => item.status === "completed").length;
  const head = `todos${why === "restored" ? " (restored from the session)" : ""}: ${done} of ${todos.length} completed`;
  return [
    head,
    ...todos.map((item) => {
      if (item.status === "completed") return `  [x] ${item.content}`;
      if (item.status === "in_progress") return `  [>] ${item.activeForm}`;
      return `  [ ] ${item.content}`;
    }),
  ];
}
