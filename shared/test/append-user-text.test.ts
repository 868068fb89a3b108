import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { describe, expect, it } from "vitest";
import { appendUserText } from "../src/append-user-text.ts";
import { historyProblems } from "../src/history-problems.ts";

describe("appendUserText", () => {
  it("starts an empty history with the user's message", () => {
    const history: MessageParam[] = [];
    appendUserText(history, "hi");
    expect(history).toEqual([{ role: "user", content: "hi" }]);
    expect(historyProblems(history)).toEqual([]);
  });

  it("adds a new user message after the assistant's answer", () => {
    const history: MessageParam[] = [
      { role: "user", content: "hi" },
      { role: "assistant", content: [{ type: "text", text: "hello" }] },
    ];
    appendUserText(history, "again");
    expect(history).toHaveLength(3);
    expect(history[2]).toEqual({ role: "user", content: "again" });
    expect(historyProblems(history)).toEqual([]);
  });

  it("merges into the last user message after a run that failed before the model answered", () => {
    const history: MessageParam[] = [{ role: "user", content: "first" }];
    appendUserText(history, "second");
    expect(history).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "first" },
          { type: "text", text: "second" },
        ],
      },
    ]);
    expect(historyProblems(history)).toEqual([]);
  });

  it("adds the text after tool results the model never read, keeping the results first", () => {
    const history: MessageParam[] = [
      { role: "user", content: "list files" },
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "bash", input: { command: "ls" } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "a.ts" }] },
    ];
    appendUserText(history, "now what?");
    expect(history).toHaveLength(3);
    expect(history[2].content).toEqual([
      { type: "tool_result", tool_use_id: "toolu_1", content: "a.ts" },
      { type: "text", text: "now what?" },
    ]);
    expect(historyProblems(history)).toEqual([]);
  });

  it("keeps the history valid across several failed runs in a row", () => {
    const history: MessageParam[] = [];
    for (const prompt of ["one", "two", "three"]) appendUserText(history, prompt);
    expect(history).toHaveLength(1);
    expect(historyProblems(history)).toEqual([]);
    expect((history[0].content as { text: string }[]).map((b) => b.text)).toEqual(["one", "two", "three"]);
  });
});
