import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { describe, expect, it } from "vitest";
import { historyProblems, isValidHistory } from "../src/history-problems.ts";

const user = (content: MessageParam["content"]): MessageParam => ({ role: "user", content });
const assistant = (content: MessageParam["content"]): MessageParam => ({ role: "assistant", content });
const toolUse = (id: string) => ({ type: "tool_use" as const, id, name: "bash", input: { command: "ls" } });
const toolResult = (id: string) => ({ type: "tool_result" as const, tool_use_id: id, content: "ok" });

describe("historyProblems", () => {
  it.each([
    ["one prompt", [user("hi")]],
    ["one prompt as blocks", [user([{ type: "text", text: "hi" }])]],
    ["a prompt and an answer", [user("hi"), assistant("hello")]],
    [
      "a tool call and its result",
      [user("list"), assistant([{ type: "text", text: "ok" }, toolUse("a")]), user([toolResult("a")])],
    ],
    [
      "two tool calls answered in another order, then text after the results",
      [
        user("list"),
        assistant([toolUse("a"), toolUse("b")]),
        user([toolResult("b"), toolResult("a"), { type: "text", text: "and also this" }]),
        assistant("done"),
      ],
    ],
    [
      "two rounds of tools",
      [
        user("go"),
        assistant([toolUse("a")]),
        user([toolResult("a")]),
        assistant([toolUse("b")]),
        user([toolResult("b")]),
        assistant("done"),
      ],
    ],
    ["a final assistant prefill", [user("Answer in JSON."), assistant("{")]],
    ["a final empty assistant message", [user("hi"), assistant([])]],
    [
      "thinking and blocks of unknown types",
      [
        user("hi"),
        assistant([
          { type: "thinking", thinking: "hm", signature: "s" },
          { type: "text", text: "ok" },
        ]),
      ],
    ],
  ] as [string, MessageParam[]][])("finds nothing wrong with %s", (_what, history) => {
    expect(historyProblems(history)).toEqual([]);
    expect(isValidHistory(history)).toBe(true);
  });

  it.each([
    ["an unanswered tool_use at the end", [user("go"), assistant([toolUse("a")])], /tool_use a not answered/],
    [
      "a tool_use whose result is missing from the next message",
      [user("go"), assistant([toolUse("a"), toolUse("b")]), user([toolResult("a")])],
      /tool_use b answered 0 times/,
    ],
    [
      "a tool_use answered by a text message",
      [user("go"), assistant([toolUse("a")]), user("never mind")],
      /tool_use a answered 0 times/,
    ],
    [
      "a result for an id nobody asked for",
      [user("go"), assistant([toolUse("a")]), user([toolResult("a"), toolResult("zzz")])],
      /tool_result zzz answers no tool_use of message 1/,
    ],
    ["a result in the first message", [user([toolResult("a")])], /tool_result a answers no tool_use/],
    [
      "a result two messages after its tool_use",
      [user("go"), assistant([toolUse("a")]), user([toolResult("a")]), assistant("x"), user([toolResult("a")])],
      /tool_result a answers no tool_use of message 3/,
    ],
    [
      "a tool_use answered twice",
      [user("go"), assistant([toolUse("a")]), user([toolResult("a"), toolResult("a")])],
      /tool_use a answered 2 times/,
    ],
    [
      "a tool_use id used twice",
      [
        user("go"),
        assistant([toolUse("a")]),
        user([toolResult("a")]),
        assistant([toolUse("a")]),
        user([toolResult("a")]),
      ],
      /tool_use id a is used twice/,
    ],
    ["two user messages in a row", [user("one"), user("two")], /message 1 \(user\): expected a assistant message/],
    ["two assistant messages in a row", [user("hi"), assistant("a"), assistant("b")], /message 2 \(assistant\)/],
    [
      "an assistant message first",
      [assistant("hello"), user("hi")],
      /message 0 \(assistant\): expected a user message/,
    ],
    ["an empty text block", [user([{ type: "text", text: "" }])], /empty text block/],
    ["an empty text block in an answer", [user("hi"), assistant([{ type: "text", text: "" }])], /empty text block/],
    [
      "a text block of whitespace only before a tool call",
      [user("go"), assistant([{ type: "text", text: "\n\n" }, toolUse("a")]), user([toolResult("a")])],
      /message 1 \(assistant\): empty text block \(or whitespace only\)/,
    ],
    ["a prompt of whitespace only", [user(" \t\n")], /message 0 \(user\): empty text block/],
    ["an empty user message", [user("")], /empty content/],
    ["an empty user block list", [user("hi"), assistant("a"), user([])], /message 2 \(user\): empty content/],
    ["an empty assistant message before the end", [user("hi"), assistant([]), user("again")], /empty content/],
    [
      "a tool_result after text",
      [user("go"), assistant([toolUse("a")]), user([{ type: "text", text: "first" }, toolResult("a")])],
      /tool_result blocks must come first/,
    ],
    ["a role the API does not know", [{ role: "system", content: "x" }], /role must be user or assistant/],
  ] as [string, MessageParam[], RegExp][])("reports %s", (_what, history, problem) => {
    const problems = historyProblems(history);
    expect(problems.some((p) => problem.test(p))).toBe(true);
    expect(isValidHistory(history)).toBe(false);
  });

  it("reports an empty history", () => {
    expect(historyProblems([])).toEqual(["the history is empty"]);
  });

  it("reports a history that is not an array", () => {
    expect(historyProblems("hi" as unknown as MessageParam[])).toEqual(["the history is not an array"]);
  });

  it("reports a null message instead of throwing", () => {
    const odd = [null, { role: "user", content: "hi" }] as unknown as MessageParam[];
    expect(historyProblems(odd)[0]).toMatch(/message 0 .*role must be user or assistant/);
  });

  it("reports a content block that is not an object instead of throwing", () => {
    const odd = [{ role: "user", content: [null, { type: "text", text: "hi" }] }] as unknown as MessageParam[];
    expect(historyProblems(odd)).toEqual(["message 0 (user): a content block is not an object"]);
  });

  it("lists every problem it finds, in order", () => {
    const problems = historyProblems([assistant([toolUse("a")]), user("x"), user("y")]);
    expect(problems.length).toBeGreaterThanOrEqual(3);
    expect(problems[0]).toMatch(/^message 0/);
    expect(problems.at(-1)).toMatch(/^message 1/);
  });
});
