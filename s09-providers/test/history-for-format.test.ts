import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { historyProblems } from "@harness/shared";
import { describe, expect, it } from "vitest";
import { historyForFormat, NOTHING_LEFT, noticeOnce, type ReasoningBlock } from "../src/history-for-format.ts";

const chatReasoning: ReasoningBlock = { type: "reasoning", format: "openai-chat", text: "DeepSeek thought" };
const responsesReasoning: ReasoningBlock = {
  type: "reasoning",
  format: "openai-responses",
  text: "summary",
  item: { type: "reasoning", id: "rs_1", summary: [], encrypted_content: "gAAAA" },
};
const assistant = (...content: unknown[]): MessageParam => ({
  role: "assistant",
  content: content as MessageParam["content"],
});
const history: MessageParam[] = [
  { role: "user", content: "go" },
  assistant(
    { type: "thinking", thinking: "Claude thought", signature: "sig" },
    { type: "redacted_thinking", data: "xx" },
    chatReasoning,
    responsesReasoning,
    { type: "server_tool_use", id: "srv_1", name: "web_search", input: {} },
    { type: "text", text: "Checking." },
    { type: "tool_use", id: "call_1", name: "bash", input: { command: "ls" } },
  ),
  { role: "user", content: [{ type: "tool_result", tool_use_id: "call_1", content: "a.txt" }] },
];
const types = (messages: MessageParam[]) =>
  (messages[1].content as { type: string; format?: string }[]).map((b) =>
    b.format ? `${b.type}:${b.format}` : b.type,
  );

describe("historyForFormat", () => {
  it("sends Anthropic its own thinking and server blocks, nobody else's reasoning", () => {
    expect(types(historyForFormat(history, "anthropic"))).toEqual([
      "thinking",
      "redacted_thinking",
      "server_tool_use",
      "text",
      "tool_use",
    ]);
  });

  it("sends Chat Completions only its own reasoning beside text and tool calls", () => {
    expect(types(historyForFormat(history, "openai-chat"))).toEqual(["reasoning:openai-chat", "text", "tool_use"]);
  });

  it("sends the Responses API only its own reasoning items", () => {
    expect(types(historyForFormat(history, "openai-responses"))).toEqual([
      "reasoning:openai-responses",
      "text",
      "tool_use",
    ]);
  });

  it("says what it dropped, a count per kind, with why", () => {
    const lines: string[] = [];
    historyForFormat(history, "openai-chat", (line) => lines.push(line));
    expect(lines).toEqual([
      "Not sent to openai-chat: 1 thinking block from anthropic (their signatures verify only at Anthropic).",
      "Not sent to openai-chat: 1 redacted_thinking block from anthropic (they are encrypted for Anthropic).",
      "Not sent to openai-chat: 1 reasoning block from openai-responses (their encrypted_content decrypts only at OpenAI).",
      "Not sent to openai-chat: 1 server_tool_use block from anthropic (only the Messages API reads them).",
    ]);
  });

  it("never changes the history it reads, and leaves it valid", () => {
    const before = structuredClone(history);
    for (const format of ["anthropic", "openai-chat", "openai-responses"] as const) {
      expect(historyProblems(historyForFormat(history, format))).toEqual([]);
    }
    expect(history).toEqual(before);
  });

  it("gives an assistant message left empty a text saying why, since no API takes an empty one", () => {
    const thinkingOnly: MessageParam[] = [
      { role: "user", content: "hm" },
      assistant({ type: "thinking", thinking: "only this", signature: "s" }),
      { role: "user", content: "and?" },
    ];
    const kept = historyForFormat(thinkingOnly, "openai-responses");
    expect(kept[1]).toEqual({ role: "assistant", content: [{ type: "text", text: NOTHING_LEFT }] });
    expect(historyProblems(kept)).toEqual([]);
  });
});

describe("noticeOnce", () => {
  it("passes each kind on once, whatever its count in later turns", () => {
    const lines: string[] = [];
    const drop = noticeOnce((line) => lines.push(line));
    drop("1 thinking block", "thinking");
    drop("2 thinking blocks", "thinking");
    drop("1 reasoning block", "reasoning:openai-chat");
    expect(lines).toEqual(["1 thinking block", "1 reasoning block"]);
  });
});
