/**
 * The reminder: after `REMIND_AFTER_TURNS` model turns without a `todo_write` while items are
 * open, the model is shown its list again, once, and the count starts over. Nothing is open (no
 * list, or every item completed): no reminder.
 *
 * Where it goes: appended to the content of the last tool_result of the turn, inside
 * `<system-reminder>` tags. The API accepts text only after a user message's tool_results (text
 * before one is refused), and the loop builds that message; the result's content is the one place
 * a `CallRunner` writes into, so the loop does not change. And it goes into the history, not only
 * into the request: told with the results, the transcript keeps it, and the next request starts
 * with the bytes this one sent, so s10's cache reads them. A reminder added to one request only
 * would be gone from the next, which would then differ from the cached prefix one turn early.
 *
 * Three turns: a step of a plan is often a read, an edit and a check, so three turns without a
 * write is about where a step has ended and the list not been told. Each reminder costs its bytes
 * in every request after it; fewer turns would be paid for in nagging.
 */
import type { CallRunner } from "@harness/s02-tool-dispatch";
import type { Emit, LoopEvent } from "@harness/shared";
import { TODO_WRITE } from "./last-written-list.ts";
import type { Todo } from "./parse-todos.ts";
import type { TodoList } from "./todo-list.ts";

/** Model turns without a `todo_write`, while items are open, before the model is reminded. */
export const REMIND_AFTER_TURNS = 3;

/** The event a reminder is told as: the model was shown its `open` items after `turns` turns. */
export type ReminderEvent = { type: "todo_reminder"; open: number; turns: number };

/** Counts the turns since the last `todo_write`, and puts the reminder on the result it is due on. */
export class Reminders {
  private since = 0; // model turns since the last todo_write
  private dueOn?: string; // the id of the call whose result carries the reminder

  constructor(
    private readonly list: TodoList,
    private readonly emit: Emit<ReminderEvent> = () => {},
    private readonly after = REMIND_AFTER_TURNS,
  ) {}

  /** The listener: each `turn` counts, a turn that calls `todo_write` starts the count over. */
  readonly observe = (event: { type: string }): void => {
    const heard = event as LoopEvent;
    if (heard.type !== "turn") return;
    const calls = heard.turn.toolCalls;
    this.since = calls.some((call) => call.name === TODO_WRITE) ? 0 : this.since + 1;
    // due on this turn's last call; a turn with no call has no result to carry it (the count goes on)
    this.dueOn = this.since >= this.after && this.list.open > 0 ? calls.at(-1)?.id : undefined;
  };

  /** `runCall`, the reminder appended to the result of the call it is due on. */
  around(runCall: CallRunner): CallRunner {
    return async (tools, call, context) => {
      const result = await runCall(tools, call, context);
      if (call.id !== this.dueOn) return result;
      const turns = this.since;
      this.emit({ type: "todo_reminder", open: this.list.open, turns });
      this.dueOn = undefined;
      this.since = 0;
      return { ...result, content: `${result.content}\n\n${reminderFor(this.list.items, turns)}` };
    };
  }
}

/** The reminder's text: what is open, and the list word for word. */
export function reminderFor(todos: readonly Todo[], turns: number): string {
  const open = todos.filter((item) => item.status !== "completed").length;
  return (
    "<system-reminder>\n" +
    `You have not used todo_write for ${turns} turns, and ${open} of your ${todos.length} items are open. ` +
    "If your work has moved on, update the list: the item you are on in_progress, each finished one completed. " +
    "If it is current, go on; do not mention this reminder to the user. Your list:\n" +
    `${JSON.stringify(todos)}\n` +
    "</system-reminder>"
  );
}
