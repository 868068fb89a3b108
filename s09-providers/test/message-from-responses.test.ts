import { AgentTurn, stopReasonFor } from "@harness/shared";
import type { Response } from "openai/resources/responses/responses";
import { describe, expect, it } from "vitest";
import { messageFromResponse } from "../src/openai/message-from-responses.ts";
import { toResponsesRequest } from "../src/openai/to-responses-request.ts";

const fn = (call_id: string, args: string) => ({
  type: "function_call",
  id: `fc_${call_id}`,
  call_id,
  name: "bash",
  arguments: args,
  status: "completed",
});
const text = (value: string) => ({
  type: "message",
  id: "msg_1",
  role: "assistant",
  status: "completed",
  content: [{ type: "output_text", text: value, annotations: [] }],
});
function turnOf(output: unknown[], status = "completed", reason?: string) {
  const response = {
    id: "r",
    object: "response",
    model: "m",
    status,
    output,
    incomplete_details: reason ? { reason } : null,
    usage: { input_tokens: 9, output_tokens: 4 },
  } as unknown as Response;
  return AgentTurn.fromResponse(messageFromResponse(response));
}

describe("messageFromResponse", () => {
  it("reads text, function calls by call_id, and usage", () => {
    const turn = turnOf([text("Running both."), fn("call_a", '{"command":"ls"}'), fn("call_b", '{"command":"pwd"}')]);
    expect(turn.text).toBe("Running both.");
    expect(turn.toolCalls.map((c) => [c.id, c.input])).toEqual([
      ["call_a", { command: "ls" }],
      ["call_b", { command: "pwd" }],
    ]);
    expect(turn.providerStopReason).toBe("tool_use");
    expect(turn.usage).toEqual({ inputTokens: 9, outputTokens: 4 });
  });

  it("ends a completed response without calls as end_turn", () => {
    expect(turnOf([text("Done.")]).providerStopReason).toBe("end_turn");
  });

  it.each([
    ["max_output_tokens", "max_tokens"],
    ["content_filter", "refusal"],
    ["a_reason_never_seen", "max_tokens"],
  ])("reads an incomplete response (%s) as %s: its calls never run", (reason, stop) => {
    const turn = turnOf([fn("call_a", '{"command":"rm -r')], "incomplete", reason);
    expect(turn.providerStopReason).toBe(stop);
    expect(stopReasonFor(turn)).not.toBeNull();
  });

  it("reads a refusal part as text with the refusal stop reason", () => {
    const refusal = { ...text(""), content: [{ type: "refusal", refusal: "No." }] };
    const turn = turnOf([refusal]);
    expect(turn.text).toBe("No.");
    expect(turn.providerStopReason).toBe("refusal");
  });

  it("keeps a reasoning item whole, to send back unchanged", () => {
    const item = {
      type: "reasoning",
      id: "rs_1",
      summary: [{ type: "summary_text", text: "think" }],
      encrypted_content: "gAAA",
    };
    const turn = turnOf([item, text("ok")]);
    expect(turn.historyContent[0]).toEqual({ type: "reasoning", format: "openai-responses", text: "think", item });
  });

  it("pairs a reasoning item with the calls after it, and sends their item ids back with them", () => {
    const reasoning = { type: "reasoning", id: "rs_1", summary: [], encrypted_content: "gAAA" };
    const call = { ...fn("call_1", "{}"), id: "fc_1" };
    const message = messageFromResponse({
      id: "resp_1",
      model: "m",
      status: "completed",
      output: [reasoning, call],
      usage: { input_tokens: 1, output_tokens: 1 },
    } as unknown as Response);
    const history = AgentTurn.fromResponse(message).historyContent;
    expect(history[0]).toMatchObject({ type: "reasoning", calls: { call_1: "fc_1" } });
    const request = toResponsesRequest({
      model: "m",
      max_tokens: 10,
      messages: [
        { role: "user", content: "go" },
        { role: "assistant", content: [...history] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "call_1", content: "done" }] },
      ],
    });
    const input = request.input as { type?: string; id?: string }[];
    expect(input.map((item) => [item.type, item.id])).toEqual([
      [undefined, undefined],
      ["reasoning", "rs_1"],
      ["function_call", "fc_1"],
      ["function_call_output", undefined],
    ]);
  });

  it("leaves out output of built-in tools the course does not offer", () => {
    const turn = turnOf([{ type: "web_search_call", id: "ws", status: "completed" }, text("ok")]);
    expect(turn.historyContent).toEqual([{ type: "text", text: "ok" }]);
  });

  it("turns arguments that do not parse into an input error", () => {
    const turn = turnOf([fn("call_a", "{oops")]);
    expect(turn.toolCalls[0].inputError).toMatch(/not a JSON object/);
  });
});
