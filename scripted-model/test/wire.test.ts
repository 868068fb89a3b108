import Anthropic from "@anthropic-ai/sdk";
import type { Message, MessageCreateParamsNonStreaming } from "@anthropic-ai/sdk/resources/messages";
import { AgentTurn, historyProblems, stopReasonFor } from "@harness/shared";
import { chunkFixtures, jsonFixtures, readJsonFixture, replayFetch } from "@harness/testkit";
import { describe, expect, it } from "vitest";
import { reply, text, textReply, toolUse } from "../src/script.ts";
import {
  contentBlocks,
  encodeSse,
  messageBody,
  stopReasonOf,
  streamEvents,
  usageOf,
  type WireContext,
} from "../src/wire.ts";

const ctx: WireContext = {
  messageId: "msg_test",
  model: "claude-test",
  toolUseId: (i) => `toolu_test_${i}`,
  inputTokens: 17,
};

const params: MessageCreateParamsNonStreaming = {
  model: "claude-test",
  max_tokens: 100,
  messages: [{ role: "user", content: "hi" }],
};

/** Replay the recorded stream `name` through the SDK's own stream parser. */
function replayed(name: string): Promise<Message> {
  const client = new Anthropic({
    apiKey: "k",
    baseURL: "http://replay.invalid",
    fetch: replayFetch(name),
    maxRetries: 0,
  });
  return client.messages.stream(params).finalMessage();
}

describe("wire", () => {
  it("encodes one event as SSE text", () => {
    expect(encodeSse({ event: "ping", data: { type: "ping" } })).toBe('event: ping\ndata: {"type":"ping"}\n\n');
  });

  it("implies the stop reason from the content unless the reply gives one", () => {
    expect(stopReasonOf(textReply("hi"))).toBe("end_turn");
    expect(stopReasonOf(reply([toolUse("bash", {})]))).toBe("tool_use");
    expect(stopReasonOf(textReply("hi", { stopReason: null }))).toBeNull();
    expect(stopReasonOf(textReply("hi", { stopReason: "refusal" }))).toBe("refusal");
  });

  it("uses the usage the reply gives, or estimates it", () => {
    expect(usageOf(textReply("hi", { usage: { input_tokens: 1, output_tokens: 2 } }), ctx)).toEqual({
      input_tokens: 1,
      output_tokens: 2,
    });
    expect(usageOf(textReply("x".repeat(400)), ctx)).toMatchObject({ input_tokens: 17 });
    expect(usageOf(textReply("x".repeat(400)), ctx).output_tokens).toBeGreaterThanOrEqual(100);
  });

  it("gives a tool call without an id one from the context, by its index", () => {
    expect(contentBlocks(reply([text("a"), toolUse("bash", { command: "ls" })]), ctx)[1]).toEqual({
      type: "tool_use",
      id: "toolu_test_1",
      name: "bash",
      input: { command: "ls" },
    });
  });

  it("builds a message body with the fields the API sends", () => {
    const body = messageBody(textReply("hi"), ctx);
    expect(Object.keys(body).sort()).toEqual(
      ["content", "id", "model", "role", "stop_reason", "stop_sequence", "type", "usage"].sort(),
    );
    expect(body).toMatchObject({ id: "msg_test", type: "message", role: "assistant", model: "claude-test" });
  });

  it("streams events in the recorded API's order: start, ping after the first block start, deltas, stop", () => {
    const events = streamEvents(reply([text("hello"), toolUse("bash", { command: "ls" })]), ctx);
    expect(events.map((e) => e.event)).toEqual([
      "message_start",
      "content_block_start",
      "ping",
      "content_block_delta",
      "content_block_stop",
      "content_block_start",
      "content_block_delta", // the API's first, empty input_json_delta
      "content_block_delta", // {"command":"ls"}
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    expect(events.every((e) => e.data.type === e.event)).toBe(true);
  });

  it("opens a tool block with empty input and streams the input text in pieces that join to it", () => {
    const input = { command: "echo 'a longer command than sixteen characters'" };
    const events = streamEvents(reply([toolUse("bash", input)]), ctx);
    const start = events.find((e) => e.event === "content_block_start")!;
    expect(start.data.content_block).toMatchObject({ type: "tool_use", input: {} });
    const pieces = events
      .filter((e) => e.event === "content_block_delta")
      .map((e) => (e.data.delta as { partial_json: string }).partial_json);
    expect(pieces[0]).toBe("");
    expect(pieces.length).toBeGreaterThan(2);
    expect(JSON.parse(pieces.join(""))).toEqual(input);
  });

  it("never splits a character across two text deltas", () => {
    const value = "🎉".repeat(30) + "é".repeat(30);
    const events = streamEvents(textReply(value), ctx);
    const deltas = events
      .filter((e) => e.event === "content_block_delta")
      .map((e) => (e.data.delta as { text: string }).text);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe(value);
    for (const delta of deltas) expect(delta).not.toMatch(/[\uD800-\uDBFF]$/);
  });

  it("streams a thinking block's text, then its signature", () => {
    const events = streamEvents(reply([{ type: "thinking", thinking: "hm", signature: "sig" }, text("ok")]), ctx);
    const deltas = events.filter((e) => e.event === "content_block_delta").map((e) => e.data.delta);
    expect(deltas.slice(0, 2)).toEqual([
      { type: "thinking_delta", thinking: "hm" },
      { type: "signature_delta", signature: "sig" },
    ]);
  });

  it("puts usage on message_start and message_delta as the API does", () => {
    const events = streamEvents(textReply("hi", { usage: { input_tokens: 5, output_tokens: 7 } }), ctx);
    expect(events[0].data.message).toMatchObject({ usage: { input_tokens: 5 }, stop_reason: null, content: [] });
    expect(events.at(-2)!.data).toMatchObject({ delta: { stop_reason: "end_turn" }, usage: { output_tokens: 7 } });
  });
});

describe("recorded API streams through the SDK's parser", () => {
  it("has recorded streams to replay", () => {
    expect(chunkFixtures.length).toBeGreaterThanOrEqual(6);
  });

  it.each(chunkFixtures)("accumulates %s into a message the turn reads into a valid history", async (name) => {
    const message = await replayed(name);
    expect(message.role).toBe("assistant");
    expect(typeof message.stop_reason).toBe("string");
    const turn = AgentTurn.fromResponse(message);
    expect(turn.providerStopReason).toBe(message.stop_reason);
    expect(turn.usage.outputTokens).toBe(message.usage.output_tokens);
    expect(turn.toolCalls.every((c) => c.inputError === undefined)).toBe(true);
    const history = [
      { role: "user" as const, content: "prompt" },
      { role: "assistant" as const, content: [...turn.historyContent] },
      ...(turn.toolCalls.length > 0
        ? [
            {
              role: "user" as const,
              content: turn.toolCalls.map((c) => ({ type: "tool_result" as const, tool_use_id: c.id, content: "ok" })),
            },
          ]
        : []),
    ];
    expect(historyProblems(history)).toEqual([]);
  });

  // the streamed and non-streamed recordings are separate calls: ids and wording differ, the shape does not
  it.each(chunkFixtures.filter((name) => jsonFixtures.includes(name)))(
    "accumulates %s into the same shape as its non-streamed recording",
    async (name) => {
      const streamed = await replayed(name);
      const recorded = readJsonFixture(name);
      const shape = (m: Message) => ({
        type: m.type,
        role: m.role,
        stop_reason: m.stop_reason,
        blocks: m.content.map((b) => [b.type, b.type === "tool_use" ? b.name : null]),
      });
      expect(shape(streamed)).toEqual(shape(recorded));
      expect(stopReasonFor(AgentTurn.fromResponse(streamed))).toBe(stopReasonFor(AgentTurn.fromResponse(recorded)));
    },
  );

  it("parses a streamed tool input with escaped quotes to the same input as the recorded JSON", async () => {
    const name = "anthropic-issue-11719-quoted-tool-input";
    const streamed = AgentTurn.fromResponse(await replayed(name));
    const recorded = AgentTurn.fromResponse(readJsonFixture(name));
    expect(streamed.toolCalls[0].input).toEqual(recorded.toolCalls[0].input);
    expect(streamed.historyContent[0]).toMatchObject({ caller: { type: "direct" } });
  });

  it("reads a tool call streamed with an empty input_json_delta as a call with {} input", async () => {
    const turn = AgentTurn.fromResponse(await replayed("anthropic-tool-no-args"));
    expect(turn.text).toBe("I'll update the issue list for you.");
    expect(turn.toolCalls).toEqual([{ id: "toolu_01QE1WLsSVp5hy5Q3GmGTmjP", name: "updateIssueList", input: {} }]);
  });

  it("keeps the streamed thinking and its signature", async () => {
    const turn = AgentTurn.fromResponse(await replayed("anthropic-clear-thinking.1"));
    expect(turn.historyContent[0]).toMatchObject({
      type: "thinking",
      thinking: "The previous result was 925. Now I need to divide that by 5.\n\n925 ÷ 5 = 185",
      signature: expect.stringMatching(/^EvQBCkYI/),
    });
    expect(turn.text).toBe("925 ÷ 5 = 185");
  });

  it("takes the input tokens given on message_delta", async () => {
    const message = await replayed("anthropic-message-delta-input-tokens");
    expect(message.usage).toMatchObject({ input_tokens: 61, output_tokens: 2 });
    expect(AgentTurn.fromResponse(message).text).toBe("pong");
  });

  it("reads a streamed refusal with no content and stop_details as a final answer with a valid history", async () => {
    const message = await replayed("anthropic-refusal");
    expect(message.content).toEqual([]);
    expect(message.stop_reason).toBe("refusal");
    const turn = AgentTurn.fromResponse(message);
    expect(stopReasonFor(turn)).toBe("final_answer");
    expect(turn.historyContent).toHaveLength(1);
  });
});
