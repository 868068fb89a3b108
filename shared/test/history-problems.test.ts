import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { describe, expect, it } from "vitest";
import { historyProblems } from "../src/history-problems.ts";

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
    expect(historyProblems(history)).toEqual([]);
  });

  const missing = (at: number, ids: string) =>
    `messages.${at}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${ids}. ` +
    "Each `tool_use` block must have a corresponding `tool_result` block in the next message.";
  const unexpected = (at: string, id: string) =>
    `messages.${at}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. ` +
    "Each `tool_result` block must have a corresponding `tool_use` block in the previous message.";
  const orphan = (at: number) =>
    `messages.${at}: \`tool_result\` block(s) provided when previous message does not contain any \`tool_use\` blocks`;
  const roles = (role: string) =>
    `messages: roles must alternate between "user" and "assistant", but found multiple "${role}" roles in a row`;
  const emptyMessage = (at: number) =>
    `messages.${at}: all messages must have non-empty content except for the optional final assistant message`;

  // each problem in the words of the API's 400 invalid_request_error for it
  it.each([
    ["an unanswered tool_use at the end", [user("go"), assistant([toolUse("a")])], [missing(1, "a")]],
    [
      "a tool_use whose result is missing from the next message",
      [user("go"), assistant([toolUse("a"), toolUse("b")]), user([toolResult("a")])],
      [missing(1, "b")],
    ],
    [
      "tool_uses answered by a text message",
      [user("go"), assistant([toolUse("a"), toolUse("b")]), user("never mind")],
      [missing(1, "a, b")],
    ],
    [
      "text placed before the tool_result blocks",
      [user("go"), assistant([toolUse("a")]), user([{ type: "text", text: "first" }, toolResult("a")])],
      [missing(1, "a")],
    ],
    [
      "text between two tool_result blocks",
      [
        user("go"),
        assistant([toolUse("a"), toolUse("b")]),
        user([toolResult("a"), { type: "text", text: "x" }, toolResult("b")]),
      ],
      [missing(1, "b")],
    ],
    [
      "a result for an id nobody asked for",
      [user("go"), assistant([toolUse("a")]), user([toolResult("a"), toolResult("zzz")])],
      [unexpected("2.content.1", "zzz")],
    ],
    ["a result in the first message", [user([toolResult("a")])], [orphan(0)]],
    [
      "a result two messages after its tool_use",
      [user("go"), assistant([toolUse("a")]), user([toolResult("a")]), assistant("x"), user([toolResult("a")])],
      [orphan(4)],
    ],
    [
      "a tool_use answered twice",
      [user("go"), assistant([toolUse("a")]), user([toolResult("a"), toolResult("a")])],
      ["messages.2.content.1: each tool_use must have a single result. Found multiple `tool_result` blocks with id: a"],
    ],
    [
      "a tool_use id used twice",
      [
        user("go"),
        assistant([toolUse("a")]),
        user([toolResult("a")]),
        assistant([{ type: "text", text: "again" }, toolUse("a")]),
        user([toolResult("a")]),
      ],
      ["messages.3.content.1: `tool_use` ids must be unique"],
    ],
    ["two user messages in a row", [user("one"), user("two")], [roles("user")]],
    ["two assistant messages in a row", [user("hi"), assistant("a"), assistant("b")], [roles("assistant")]],
    [
      "an assistant message first",
      [assistant("hello"), user("hi")],
      ['messages: first message must use the "user" role'],
    ],
    ["an empty text block", [user([{ type: "text", text: "" }])], ["messages: text content blocks must be non-empty"]],
    [
      "an empty text block in an answer",
      [user("hi"), assistant([{ type: "text", text: "" }])],
      ["messages: text content blocks must be non-empty"],
    ],
    [
      "a text block of whitespace only before a tool call",
      [user("go"), assistant([{ type: "text", text: "\n\n" }, toolUse("a")]), user([toolResult("a")])],
      ["messages: text content blocks must contain non-whitespace text"],
    ],
    [
      "a prompt of whitespace only",
      [user(" \t\n")],
      ["messages: text content blocks must contain non-whitespace text"],
    ],
    ["an empty user message", [user("")], [emptyMessage(0)]],
    ["an empty user block list", [user("hi"), assistant("a"), user([])], [emptyMessage(2)]],
    ["an empty assistant message before the end", [user("hi"), assistant([]), user("again")], [emptyMessage(1)]],
  ] as [string, MessageParam[], string[]][])("reports %s", (_what, history, problems) => {
    expect(historyProblems(history)).toEqual(problems);
    expect(historyProblems(history)).not.toEqual([]);
  });

  it("reports an empty history", () => {
    expect(historyProblems([])).toEqual(["messages: at least one message is required"]);
  });

  it("lists every problem it finds, in the order of the messages", () => {
    expect(historyProblems([assistant([toolUse("a")]), user("x"), user("y")])).toEqual([
      'messages: first message must use the "user" role',
      missing(0, "a"),
      roles("user"),
    ]);
  });
});
