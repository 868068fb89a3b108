/**
 * The restatement, fed the window's `context` events: the list goes right after the summary, word
 * for word, only after a compaction, and only when the history kept no longer says it.
 */
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { type ContextEvent, SUMMARY_OPENING } from "@harness/s08-compaction";
import { describe, expect, it } from "vitest";
import type { Todo } from "../src/parse-todos.ts";
import { restatement, restatePlan } from "../src/restate-plan.ts";
import { TodoList } from "../src/todo-list.ts";

const TODOS: Todo[] = [
  { content: "Read the file", status: "completed", activeForm: "Reading the file" },
  { content: "Run the tests", status: "in_progress", activeForm: "Running the tests" },
];
const SUMMARY = `${SUMMARY_OPENING}\n\n## Task\nRead the file, then run the tests.`;

/** A compacted history: the summary, the latest request beside it, then an answer. */
const compacted = (): MessageParam[] => [
  {
    role: "user",
    content: [
      { type: "text", text: SUMMARY },
      { type: "text", text: "Go on" },
    ],
  },
  { role: "assistant", content: "Going on." },
];
const event = (messages: MessageParam[], kind: "compacted" | "cleared" = "compacted"): ContextEvent => ({
  type: "context",
  change:
    kind === "compacted"
      ? { kind, why: "threshold", summarised: 6, kept: 1, before: 9000, after: 900 }
      : { kind, results: 1, before: 9000, after: 8000 },
  messages,
});
const listOf = (todos: Todo[]) => {
  const list = new TodoList();
  list.replace(todos);
  return list;
};

describe("restatePlan", () => {
  it("puts the list right after the summary, word for word, before the latest request", () => {
    const messages = compacted();
    restatePlan(listOf(TODOS))(event(messages));
    expect(messages[0].content).toEqual([
      { type: "text", text: SUMMARY },
      { type: "text", text: restatement(TODOS) },
      { type: "text", text: "Go on" },
    ]);
    expect(restatement(TODOS)).toContain(JSON.stringify(TODOS));
  });

  it("leaves the history alone when nothing was compacted, or there is no list", () => {
    const cleared = compacted();
    restatePlan(listOf(TODOS))(event(cleared, "cleared"));
    expect(cleared).toEqual(compacted());
    const empty = compacted();
    restatePlan(listOf([]))(event(empty));
    expect(empty).toEqual(compacted());
  });

  it("restates nothing when the history kept still holds the call that wrote the list", () => {
    const messages: MessageParam[] = [
      ...compacted().slice(0, 1),
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "todo_write", input: { todos: TODOS } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "saved" }] },
    ];
    const before = structuredClone(messages);
    restatePlan(listOf(TODOS))(event(messages));
    expect(messages).toEqual(before);
  });
});
