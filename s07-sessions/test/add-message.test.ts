import type { Message, MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { AgentTurn, appendAssistantTurn, appendUserText } from "@harness/shared";
import { describe, expect, it } from "vitest";
import { addMessage } from "../src/add-message.ts";

const turn = (text: string, stop = "end_turn") =>
  AgentTurn.fromResponse({
    id: "m",
    type: "message",
    role: "assistant",
    model: "m",
    content: [{ type: "text", text, citations: null }],
    stop_reason: stop,
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 },
  } as unknown as Message);

describe("addMessage", () => {
  it("adds a message of the other role as a message of its own", () => {
    const messages: MessageParam[] = [{ role: "user", content: "hi" }];
    addMessage(messages, { role: "assistant", content: [{ type: "text", text: "hello" }] });
    expect(messages).toEqual([
      { role: "user", content: "hi" },
      { role: "assistant", content: [{ type: "text", text: "hello" }] },
    ]);
  });

  it("joins the model's continuation after pause_turn exactly as appendAssistantTurn does", () => {
    const start: MessageParam[] = [{ role: "user", content: "hi" }];
    const byShared = structuredClone(start);
    const byKeep = structuredClone(start);
    for (const t of [turn("First part.", "pause_turn"), turn("Second part.")]) {
      appendAssistantTurn(byShared, t);
      addMessage(byKeep, { role: "assistant", content: [...t.historyContent] });
    }
    expect(byKeep).toEqual(byShared);
    expect(byKeep).toHaveLength(2);
  });

  it("joins a prompt after an unanswered one exactly as appendUserText does", () => {
    const byShared: MessageParam[] = [{ role: "user", content: "first" }];
    const byKeep: MessageParam[] = [{ role: "user", content: "first" }];
    appendUserText(byShared, "second");
    addMessage(byKeep, { role: "user", content: "second" });
    expect(byKeep).toEqual(byShared);
  });
});
