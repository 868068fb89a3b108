/**
 * The reminder, fed the loop's `turn` events and run around a call runner: when it is due, on
 * which result it goes, and when it never comes.
 */
import type { CallRunner, ToolMap } from "@harness/s02-tool-dispatch";
import type { ToolCall } from "@harness/shared";
import { describe, expect, it } from "vitest";
import type { Todo } from "../src/parse-todos.ts";
import { REMIND_AFTER_TURNS, type ReminderEvent, Reminders, reminderFor } from "../src/reminders.ts";
import { TodoList } from "../src/todo-list.ts";

const OPEN: Todo[] = [
  { content: "Read the file", status: "completed", activeForm: "Reading the file" },
  { content: "Run the tests", status: "in_progress", activeForm: "Running the tests" },
  { content: "Fix the bug", status: "pending", activeForm: "Fixing the bug" },
];
const DONE: Todo[] = OPEN.map((item) => ({ ...item, status: "completed" }));

const call = (id: string, name = "read_file"): ToolCall => ({ id, name, input: {} });
const ran: CallRunner = async (_, c) => ({ content: `ran ${c.id}`, isError: false });
const NO_TOOLS: ToolMap = new Map();

/** A reminder set up on a list of `todos`; `turn(calls)` plays one turn and returns its results. */
function setUp(todos: Todo[]) {
  const list = new TodoList();
  list.replace(todos);
  const told: ReminderEvent[] = [];
  const reminders = new Reminders(list, (event) => told.push(event));
  const runCall = reminders.around(ran);
  const turn = async (...calls: ToolCall[]) => {
    reminders.observe({ type: "turn", turn: { toolCalls: calls } } as never);
    return Promise.all(calls.map((c) => runCall(NO_TOOLS, c, { cwd: "/" }).then((r) => r.content)));
  };
  return { turn, told, list };
}

describe("Reminders", () => {
  it(`reminds after ${REMIND_AFTER_TURNS} turns without a todo_write, on the last result of that turn`, async () => {
    const { turn, told } = setUp(OPEN);
    expect(await turn(call("a"))).toEqual(["ran a"]);
    expect(await turn(call("b"))).toEqual(["ran b"]);
    const third = await turn(call("c1"), call("c2"));
    expect(third).toEqual(["ran c1", `ran c2\n\n${reminderFor(OPEN, 3)}`]);
    expect(told).toEqual([{ type: "todo_reminder", open: 2, turns: 3 }]);
  });

  it("reminds once, then again only after as many turns more", async () => {
    const { turn } = setUp(OPEN);
    const reminded: number[] = [];
    for (let n = 1; n <= 9; n++) if ((await turn(call(`t${n}`)))[0].includes("<system-reminder>")) reminded.push(n);
    expect(reminded).toEqual([3, 6, 9]);
  });

  it("starts the count over at a turn that calls todo_write", async () => {
    const { turn } = setUp(OPEN);
    await turn(call("a"));
    await turn(call("b"));
    await turn(call("w", "todo_write"), call("c"));
    expect((await turn(call("d"))).join()).not.toContain("<system-reminder>");
    expect((await turn(call("e"))).join()).not.toContain("<system-reminder>");
    expect((await turn(call("f"))).join()).toContain("<system-reminder>");
  });

  it("carries a reminder due on a turn without a call to the next turn that has one", async () => {
    const { turn } = setUp(OPEN);
    await turn(call("a"));
    await turn(call("b"));
    await turn(); // an answer: no result to carry it
    expect(await turn(call("c"))).toEqual([`ran c\n\n${reminderFor(OPEN, 4)}`]);
  });

  it.each([
    ["the list is empty", []],
    ["every item is completed", DONE],
  ])("never reminds when %s", async (_, todos) => {
    const { turn, told } = setUp(todos);
    for (let n = 1; n <= 10; n++) expect(await turn(call(`t${n}`))).toEqual([`ran t${n}`]);
    expect(told).toEqual([]);
  });

  it("says how many items are open, and gives the list word for word", () => {
    const text = reminderFor(OPEN, 3);
    expect(text).toMatch(/^<system-reminder>\n[\s\S]*<\/system-reminder>$/);
    expect(text).toContain("2 of your 3 items are open");
    expect(text).toContain(JSON.stringify(OPEN));
  });
});
