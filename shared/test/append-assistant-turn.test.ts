import type { Message, MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { describe, expect, it } from "vitest";
import { AgentTurn } from "../src/agent-turn.ts";
import { appendAssistantTurn } from "../src/append-assistant-turn.ts";
import { appendUserText } from "../src/append-user-text.ts";
import { historyProblems } from "../src/history-problems.ts";

function turn(content: unknown[], stopReason = "end_turn"): AgentTurn {
  return AgentTurn.fromResponse({ content, stop_reason: stopReason, usage: {} } as unknown as Message);
}

describe("appendAssistantTurn", () => {
  it("appends the turn as an assistant message after the user's", () => {
    const history: MessageParam[] = [{ role: "user", content: "hi" }];
    appendAssistantTurn(history, turn([{ type: "text", text: "hello" }]));
    expect(history).toEqual([
      { role: "user", content: "hi" },
      { role: "assistant", content: [{ type: "text", text: "hello" }] },
    ]);
    expect(historyProblems(history)).toEqual([]);
  });

  it("copies the turn's blocks, so later edits of the history leave the turn alone", () => {
    const t = turn([{ type: "text", text: "hello" }]);
    const history: MessageParam[] = [{ role: "user", content: "hi" }];
    appendAssistantTurn(history, t);
    (history[1].content as unknown[]).push({ type: "text", text: "more" });
    expect(t.historyContent).toHaveLength(1);
  });

  it("merges the continuation of a pause_turn into the paused message, so roles alternate", () => {
    const history: MessageParam[] = [{ role: "user", content: "search the web" }];
    const paused = turn(
      [
        { type: "text", text: "Searching." },
        { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "x" } },
      ],
      "pause_turn",
    );
    appendAssistantTurn(history, paused);
    appendAssistantTurn(history, turn([{ type: "text", text: "Found it." }]));
    expect(history).toHaveLength(2);
    expect((history[1].content as { type: string }[]).map((b) => b.type)).toEqual(["text", "server_tool_use", "text"]);
    expect(historyProblems(history)).toEqual([]);
  });

  it("merges into a final assistant prefill written as a string", () => {
    const history: MessageParam[] = [
      { role: "user", content: "Answer in JSON." },
      { role: "assistant", content: "{" },
    ];
    appendAssistantTurn(history, turn([{ type: "text", text: '"a": 1}' }]));
    expect(history).toHaveLength(2);
    expect(history[1].content).toEqual([
      { type: "text", text: "{" },
      { type: "text", text: '"a": 1}' },
    ]);
    expect(historyProblems(history)).toEqual([]);
  });

  it("merges into an empty final assistant message without leaving an empty text block", () => {
    const history: MessageParam[] = [
      { role: "user", content: "hi" },
      { role: "assistant", content: "" },
    ];
    appendAssistantTurn(history, turn([{ type: "text", text: "hello" }]));
    expect(history[1].content).toEqual([{ type: "text", text: "hello" }]);
    expect(historyProblems(history)).toEqual([]);
  });

  it("keeps the history valid when a run failed and the user asks again", () => {
    const history: MessageParam[] = [];
    appendUserText(history, "first");
    // the model call failed: no assistant turn; the user types the next prompt
    appendUserText(history, "second");
    appendAssistantTurn(history, turn([{ type: "text", text: "answer" }]));
    expect(history.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(historyProblems(history)).toEqual([]);
  });

  it("keeps the history valid for a turn with no content", () => {
    const history: MessageParam[] = [{ role: "user", content: "hi" }];
    appendAssistantTurn(history, turn([], "refusal"));
    appendUserText(history, "why?");
    expect(historyProblems(history)).toEqual([]);
  });
});
