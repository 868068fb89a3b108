/**
 * The plan as the harness holds it: the list the model's last accepted `todo_write` wrote. Each
 * change is told as a `todos` event, so whoever shows the plan (the terminal's block, a trace)
 * listens rather than asks. A resumed or forked session starts from the list its history holds.
 */
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import type { Emit } from "@harness/shared";
import { lastWrittenList } from "./last-written-list.ts";
import type { Todo } from "./parse-todos.ts";

/** The event s11 adds: the list changed (`written` by todo_write, or `restored` from a session's history). */
export type TodoEvent = { type: "todos"; todos: readonly Todo[]; why: "written" | "restored" };

/** The current plan of a session. */
export class TodoList {
  private list: readonly Todo[] = [];

  /** `emit` is told each change. */
  constructor(private readonly emit: Emit<TodoEvent> = () => {}) {}

  /** The items, in the model's order (copies: changing them changes nothing here). */
  get items(): Todo[] {
    return this.list.map((item) => ({ ...item }));
  }

  /** How many items are not completed yet. */
  get open(): number {
    return this.list.filter((item) => item.status !== "completed").length;
  }

  /** Replace the whole list, as each `todo_write` does, and tell it. */
  replace(todos: readonly Todo[], why: TodoEvent["why"] = "written"): void {
    this.list = todos.map((item) => ({ ...item }));
    this.emit({ type: "todos", todos: this.items, why });
  }

  /** Take on the list `history` last wrote (a resumed or forked session's); nothing when it wrote none. */
  restore(history: readonly MessageParam[]): void {
    const found = lastWrittenList(history);
    if (found.length > 0) this.replace(found, "restored");
  }
}
