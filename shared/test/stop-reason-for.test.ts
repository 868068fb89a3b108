import type { Message } from "@anthropic-ai/sdk/resources/messages";
import { describe, expect, it } from "vitest";
import { AgentTurn } from "../src/agent-turn.ts";
import { stopReasonFor } from "../src/stop-reason-for.ts";

function turn(stopReason: string | null, withTool: boolean): AgentTurn {
  const content = [
    { type: "text", text: "hi" },
    ...(withTool ? [{ type: "tool_use", id: "toolu_1", name: "bash", input: {} }] : []),
  ];
  return AgentTurn.fromResponse({ content, stop_reason: stopReason, usage: {} } as unknown as Message);
}

describe("stopReasonFor", () => {
  it.each([
    ["max_tokens", true, "max_tokens"],
    ["max_tokens", false, "max_tokens"],
    ["model_context_window_exceeded", true, "max_tokens"],
    ["model_context_window_exceeded", false, "max_tokens"],
    ["refusal", true, "final_answer"],
    ["refusal", false, "final_answer"],
    ["tool_use", false, "final_answer"],
    ["tool_use", true, null],
    ["end_turn", true, null],
    ["pause_turn", false, null],
    ["pause_turn", true, null],
    ["end_turn", false, "final_answer"],
    ["stop_sequence", false, "final_answer"],
    ["stop_sequence", true, null],
    ["a_reason_from_2030", false, "final_answer"],
    ["a_reason_from_2030", true, null],
    [null, false, "final_answer"],
    [null, true, null],
    ["", false, "final_answer"],
  ] as const)("maps %s (tool_use present: %s) to %s", (stop, withTool, expected) => {
    expect(stopReasonFor(turn(stop, withTool))).toBe(expected);
  });

  it("never runs a tool cut by max_tokens, even one with complete input", () => {
    expect(stopReasonFor(turn("max_tokens", true))).toBe("max_tokens");
  });

  it("continues after pause_turn with no tool calls, so the history is sent again", () => {
    expect(stopReasonFor(turn("pause_turn", false))).toBeNull();
  });

  it("ends as an answer when every tool_use was dropped for lacking an id", () => {
    const dropped = AgentTurn.fromResponse({
      content: [{ type: "tool_use", name: "bash", input: {} }],
      stop_reason: "tool_use",
    } as unknown as Message);
    expect(stopReasonFor(dropped)).toBe("final_answer");
  });

  it("never throws on a stop reason that is not a string", () => {
    const odd = AgentTurn.fromResponse({ content: [], stop_reason: 42 } as unknown as Message);
    expect(stopReasonFor(odd)).toBe("final_answer");
  });
});
