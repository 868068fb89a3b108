/**
 * The rules of the list, as a table: each input the harness refuses, with the rule its error
 * names, then what it accepts (a list sent as a JSON string among them).
 */
import { describe, expect, it } from "vitest";
import { parseTodos, type Todo } from "../src/parse-todos.ts";

const item = (content: string, status: string, activeForm = `${content}ing`) => ({ content, status, activeForm });
const READ: Todo = { content: "Read the file", status: "completed", activeForm: "Reading the file" };
const TEST: Todo = { content: "Run the tests", status: "in_progress", activeForm: "Running the tests" };
const FIX: Todo = { content: "Fix the bug", status: "pending", activeForm: "Fixing the bug" };

const REFUSED: [string, unknown, string][] = [
  [
    "two items in progress",
    { todos: [item("Read", "in_progress"), item("Test", "pending"), item("Fix", "in_progress")] },
    "one item in progress at a time: items 1 and 3 are in_progress; the list is unchanged",
  ],
  [
    "three items in progress",
    { todos: [item("A", "in_progress"), item("B", "in_progress"), item("C", "in_progress")] },
    "one item in progress at a time: items 1, 2 and 3 are in_progress; the list is unchanged",
  ],
  [
    "an empty content",
    { todos: [item("Read", "completed"), item("  ", "pending")] },
    "every item needs content: item 2 has none; the list is unchanged",
  ],
  [
    "a missing content",
    { todos: [{ status: "pending", activeForm: "Reading" }] },
    "every item needs content: item 1 has none; the list is unchanged",
  ],
  [
    "an unknown status",
    { todos: [item("Read", "done")] },
    'status is one of pending, in_progress, completed: item 1 says "done"; the list is unchanged',
  ],
  [
    "no status",
    { todos: [{ content: "Read", activeForm: "Reading" }] },
    "status is one of pending, in_progress, completed: item 1 says null; the list is unchanged",
  ],
  [
    "an empty activeForm",
    { todos: [item("Read", "pending", "")] },
    'every item needs an activeForm ("Running the tests"): item 1 has none; the list is unchanged',
  ],
  ["no list", { items: [] }, "todos must be a list of {content, status, activeForm}; the list is unchanged"],
  [
    "a list that is an object",
    { todos: { 0: READ } },
    "todos must be a list of {content, status, activeForm}; the list is unchanged",
  ],
  [
    "a string that is not JSON",
    { todos: "[{content: Read}" },
    "todos is a string that is not a JSON list; the list is unchanged",
  ],
  [
    "a JSON string that is not a list",
    { todos: '"Read"' },
    "todos must be a list of {content, status, activeForm}; the list is unchanged",
  ],
];

describe("parseTodos", () => {
  it.each(REFUSED)("refuses %s, naming the rule", (_, input, error) => {
    expect(parseTodos(input)).toEqual({ ok: false, error });
  });

  it("accepts a list with one item in progress, in the model's order", () => {
    expect(parseTodos({ todos: [READ, TEST, FIX] })).toEqual({ ok: true, value: [READ, TEST, FIX] });
  });

  it("reads a list sent as a JSON string as the list it spells", () => {
    expect(parseTodos({ todos: JSON.stringify([READ, TEST]) })).toEqual({ ok: true, value: [READ, TEST] });
  });

  it("accepts an empty list (the plan cleared) and a list with nothing in progress", () => {
    expect(parseTodos({ todos: [] })).toEqual({ ok: true, value: [] });
    expect(parseTodos({ todos: [READ, FIX] })).toEqual({ ok: true, value: [READ, FIX] });
  });

  it("keeps only the three fields of an item", () => {
    expect(parseTodos({ todos: [{ ...FIX, id: "7", priority: "high" }] })).toEqual({ ok: true, value: [FIX] });
  });
});
