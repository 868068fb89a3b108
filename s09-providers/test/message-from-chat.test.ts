import { AgentTurn, stopReasonFor } from "@harness/shared";
import type { ChatCompletion } from "openai/resources/chat/completions";
import { describe, expect, it } from "vitest";
import { CHAT_STOP_REASONS, messageFromChat } from "../src/openai/message-from-chat.ts";

function completion(message: Record<string, unknown>, finish: string | null): ChatCompletion {
  return {
    id: "c",
    object: "chat.completion",
    created: 0,
    model: "m",
    choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: finish, logprobs: null }],
    usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
  } as ChatCompletion;
}
const call = (id: string, args: string) => ({ id, type: "function", function: { name: "bash", arguments: args } });
const turnOf = (message: Record<string, unknown>, finish: string | null) =>
  AgentTurn.fromResponse(messageFromChat(completion(message, finish)));

describe("messageFromChat", () => {
  it.each(Object.entries(CHAT_STOP_REASONS))("maps finish_reason %s to %s", (finish, stop) => {
    expect(turnOf({ content: "x" }, finish).providerStopReason).toBe(stop);
  });

  it("passes an unknown finish_reason on: it ends the loop unless the turn asks for tools", () => {
    expect(stopReasonFor(turnOf({ content: "x" }, "novel_reason"))).toBe("final_answer");
    const withCall = turnOf({ content: null, tool_calls: [call("c1", '{"command":"ls"}')] }, "novel_reason");
    expect(withCall.providerStopReason).toBe("novel_reason");
    expect(stopReasonFor(withCall)).toBeNull();
  });

  it("never runs a call cut by the length limit, nor one the content filter stopped", () => {
    for (const finish of ["length", "content_filter"]) {
      const turn = turnOf({ content: null, tool_calls: [call("c1", '{"command":"rm -rf')] }, finish);
      expect(turn.toolCalls).toHaveLength(1);
      expect(stopReasonFor(turn)).not.toBeNull();
    }
  });

  it("parses each call's arguments once; text that does not parse is an input error", () => {
    const turn = turnOf(
      { tool_calls: [call("c1", '{"command":"ls"}'), call("c2", "{'command': 'ls'}"), call("c3", "")] },
      "tool_calls",
    );
    expect(turn.toolCalls.map((c) => [c.id, c.input, c.inputError !== undefined])).toEqual([
      ["c1", { command: "ls" }, false],
      ["c2", {}, true],
      ["c3", {}, false],
    ]);
  });

  it("reads a refusal as text with the refusal stop reason", () => {
    const turn = turnOf({ content: null, refusal: "I can't help with that." }, "stop");
    expect(turn.text).toBe("I can't help with that.");
    expect(turn.providerStopReason).toBe("refusal");
  });

  it("keeps reasoning under either field name, tagged with its format", () => {
    for (const field of ["reasoning_content", "reasoning"]) {
      const turn = turnOf({ content: "ok", [field]: "because" }, "stop");
      expect(turn.historyContent[0]).toEqual({ type: "reasoning", format: "openai-chat", text: "because" });
      expect(turn.text).toBe("ok");
    }
  });

  it("leaves out a call of another type, and reads usage", () => {
    const turn = turnOf({ tool_calls: [{ id: "x", type: "custom", custom: { name: "t", input: "" } }] }, "tool_calls");
    expect(turn.toolCalls).toEqual([]);
    expect(turn.usage).toEqual({ inputTokens: 5, outputTokens: 2 });
  });

  it("never throws on a body that is not a completion", () => {
    for (const body of [{}, { choices: [] }, { choices: [{}] }, null]) {
      expect(() => AgentTurn.fromResponse(messageFromChat(body as unknown as ChatCompletion))).not.toThrow();
    }
  });
});
