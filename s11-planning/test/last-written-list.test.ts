/**
 * The list a history holds: the input of its last todo_write that was answered without an error.
 */
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { describe, expect, it } from "vitest";
import { lastWrittenList } from "../src/last-written-list.ts";
import type { Todo } from "../src/parse-todos.ts";

const A: Todo[] = [{ content: "Read the file", status: "in_progress", activeForm: "Reading the file" }];
const B: Todo[] = [{ content: "Read the file", status: "completed", activeForm: "Reading the file" }];

/** A turn that calls todo_write with `todos`, answered with `isError` (or not answered at all). */
function write(id: string, todos: unknown, answer?: { isError: boolean }): MessageParam[] {
  const call: MessageParam = {
    role: "assistant",
    content: [{ type: "tool_use", id, name: "todo_write", input: { todos } }],
  };
  if (!answer) return [call];
  return [
    call,
    {
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: id, content: answer.isError ? "Error" : "saved", is_error: answer.isError },
      ],
    },
  ];
}
const PROMPT: MessageParam = { role: "user", content: "Plan it" };

describe("lastWrittenList", () => {
  it("is empty for a history with no todo_write", () => {
    expect(lastWrittenList([PROMPT, { role: "assistant", content: "Done." }])).toEqual([]);
  });

  it("is the last accepted call's list", () => {
    expect(
      lastWrittenList([PROMPT, ...write("t1", A, { isError: false }), ...write("t2", B, { isError: false })]),
    ).toEqual(B);
  });

  it("passes over a call answered with an error: the list it sent never held", () => {
    expect(
      lastWrittenList([PROMPT, ...write("t1", A, { isError: false }), ...write("t2", B, { isError: true })]),
    ).toEqual(A);
  });

  it("passes over a call with no result (a session stopped while it ran)", () => {
    expect(lastWrittenList([PROMPT, ...write("t1", A, { isError: false }), ...write("t2", B)])).toEqual(A);
  });

  it("reads a list the model sent as a JSON string", () => {
    expect(lastWrittenList([PROMPT, ...write("t1", JSON.stringify(B), { isError: false })])).toEqual(B);
  });

  it("finds the call among others of the same turn, answered in the message after it", () => {
    const history: MessageParam[] = [
      PROMPT,
      {
        role: "assistant",
        content: [
          { type: "text", text: "Planning." },
          { type: "tool_use", id: "r1", name: "read_file", input: { path: "a" } },
          { type: "tool_use", id: "t1", name: "todo_write", input: { todos: A } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "r1", content: "1\ta", is_error: false },
          { type: "tool_result", tool_use_id: "t1", content: "saved" },
        ],
      },
    ];
    expect(lastWrittenList(history)).toEqual(A);
  });
});
