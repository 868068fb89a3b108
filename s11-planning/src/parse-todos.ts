/**
 * The list `todo_write` takes, and the rules the harness holds it to. The shape is Claude Code's
 * TodoWrite: `{ todos: [{ content, status, activeForm }] }`, the whole list each time. What the
 * harness can check, it checks: every item has its words, a status it knows, and at most one item
 * is in progress. A list sent as a JSON string (models do this) is read as the list it spells.
 *
 * Left out: what only the model can know (whether an item is really done; whether the list fits
 * the task). The tool's description asks for those.
 */
import type { Parsed } from "@harness/s02-tool-dispatch";

/** Where an item stands. */
export type TodoStatus = "pending" | "in_progress" | "completed";

/** Every status, in the order an item moves through them. */
export const TODO_STATUSES: readonly TodoStatus[] = ["pending", "in_progress", "completed"];

/** One item of the plan. */
export interface Todo {
  /** What to do, in the imperative: "Run the tests". */
  content: string;
  status: TodoStatus;
  /** The same, as it is being done: "Running the tests" (shown while it is in progress). */
  activeForm: string;
}

/**
 * Read `input` as a todo list, or say which rule it breaks.
 * Contract: never throws; an error names the rule and the item (counted from 1), and ends by
 * saying the list is unchanged (the tool does not run on input this refuses).
 */
export function parseTodos(input: unknown): Parsed<Todo[]> {
  const refused = (rule: string): Parsed<Todo[]> => ({ ok: false, error: `${rule}; the list is unchanged` });
  let todos = (input as { todos?: unknown } | null)?.todos;
  if (typeof todos === "string") {
    // a list sent as a JSON string: read it, as the model meant it
    try {
      todos = JSON.parse(todos);
    } catch {
      return refused("todos is a string that is not a JSON list");
    }
  }
  if (!Array.isArray(todos)) return refused("todos must be a list of {content, status, activeForm}");
  const items: Todo[] = [];
  for (const [i, raw] of todos.entries()) {
    const item = (typeof raw === "object" && raw !== null ? raw : {}) as Record<string, unknown>;
    const { content, status, activeForm } = item;
    const n = i + 1;
    if (typeof content !== "string" || content.trim() === "")
      return refused(`every item needs content: item ${n} has none`);
    if (!TODO_STATUSES.includes(status as TodoStatus)) {
      return refused(`status is one of ${TODO_STATUSES.join(", ")}: item ${n} says ${JSON.stringify(status ?? null)}`);
    }
    if (typeof activeForm !== "string" || activeForm.trim() === "") {
      return refused(`every item needs an activeForm ("Running the tests"): item ${n} has none`);
    }
    items.push({ content, status: status as TodoStatus, activeForm });
  }
  const working = items.flatMap((item, i) => (item.status === "in_progress" ? [i + 1] : []));
  if (working.length > 1) {
    const which = `${working.slice(0, -1).join(", ")} and ${working.at(-1)}`;
    return refused(`one item in progress at a time: items ${which} are in_progress`);
  }
  return { ok: true, value: items };
}
