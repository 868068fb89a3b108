import { readFileSync } from "node:fs";
import { join } from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { EndpointError, endpointGuard } from "@harness/cli";
import { AgentTurn, stopReasonFor } from "@harness/shared";
import OpenAI, { APIError, RateLimitError } from "openai";
import { describe, expect, it } from "vitest";
import { anthropicAdapter } from "../src/anthropic-adapter.ts";
import { isReasoningBlock } from "../src/history-for-format.ts";
import { messageFromChat } from "../src/openai/message-from-chat.ts";
import { messageFromResponse } from "../src/openai/message-from-responses.ts";
import { openAiChatAdapter } from "../src/openai/openai-chat-adapter.ts";
import { CHAT_COMPLETIONS_API, guardedFetch, RESPONSES_API } from "../src/openai/openai-endpoint-guard.ts";
import { openAiResponsesAdapter } from "../src/openai/openai-responses-adapter.ts";
import type { TurnRequest } from "../src/provider-adapter.ts";
import {
  ANTHROPIC_FIXTURES,
  chatStream,
  chunkLines,
  jsonBody,
  OPENAI_FIXTURES,
  type Recording,
  replayFetch,
  typedStreams,
} from "./replay-fetch.ts";

const tools = [
  { name: "weather", description: "The weather in a place.", input_schema: { type: "object" as const } },
  { name: "calculator", description: "Arithmetic.", input_schema: { type: "object" as const } },
];
const request = (messages: MessageParam[] = [{ role: "user", content: "the prompt" }]): TurnRequest => ({
  model: "recorded",
  max_tokens: 1024,
  tools,
  messages,
});
const signal = () => new AbortController().signal;
const openAi = (api: typeof CHAT_COMPLETIONS_API, fetch: ReturnType<typeof replayFetch>["fetch"]) =>
  new OpenAI({
    apiKey: "k",
    baseURL: "http://recorded.invalid/v1",
    maxRetries: 0,
    fetch: guardedFetch(api, 5000, fetch),
  });

function chat(recordings: Recording[]) {
  const replay = replayFetch(recordings);
  const client = openAi(CHAT_COMPLETIONS_API, replay.fetch);
  return { client, adapter: openAiChatAdapter(client, { retryDelayMs: 1 }), sent: replay.sent };
}

function responses(recordings: Recording[]) {
  const replay = replayFetch(recordings);
  const client = openAi(RESPONSES_API, replay.fetch);
  return { client, adapter: openAiResponsesAdapter(client, { retryDelayMs: 1 }), sent: replay.sent };
}

/** What a Chat Completions stream says, joined field by field straight from its lines (the oracle). */
function chatOracle(name: string) {
  const deltas = chunkLines(join(OPENAI_FIXTURES, `${name}.chunks.txt`)).flatMap((chunk) =>
    (chunk.choices as { delta: Record<string, string | null> }[]).map((choice) => choice.delta),
  );
  return {
    content: deltas.map((d) => d.content ?? "").join(""),
    reasoning: deltas.map((d) => d.reasoning_content ?? "").join(""),
  };
}

describe("Chat Completions recordings, through the openai-chat adapter", () => {
  it.each(["openai-text", "deepseek-reasoning", "deepseek-tool-call", "xai-tool-call"])(
    "rebuilds the text and reasoning of %s from exactly its deltas",
    async (name) => {
      const { adapter } = chat([chatStream(join(OPENAI_FIXTURES, `${name}.chunks.txt`))]);
      const heard: string[] = [];
      const message = await adapter.streamTurn(request(), signal(), (event) => {
        if (event.type === "text") heard.push(event.text);
      });
      const turn = AgentTurn.fromResponse(message ?? fail());
      const oracle = chatOracle(name);
      expect(turn.text).toBe(oracle.content);
      expect(heard.join("")).toBe(oracle.content);
      const reasoning = (turn.historyContent as unknown[]).filter(isReasoningBlock);
      expect(reasoning.map((block) => block.text).join("")).toBe(oracle.reasoning);
      expect(reasoning.every((block) => block.format === "openai-chat")).toBe(true);
    },
  );

  it("reads OpenAI's plain answer: stop is end_turn, the usage from the usage chunk", async () => {
    const { adapter } = chat([chatStream(join(OPENAI_FIXTURES, "openai-text.chunks.txt"))]);
    const turn = AgentTurn.fromResponse((await adapter.streamTurn(request(), signal())) ?? fail());
    expect(turn.providerStopReason).toBe("end_turn");
    expect(turn.usage).toEqual({ inputTokens: 16, outputTokens: 300 });
    expect(turn.toolCalls).toEqual([]);
    expect(stopReasonFor(turn)).toBe("final_answer");
  });

  it("assembles DeepSeek's tool call from its argument fragments, parsed once, with its reasoning", async () => {
    const { adapter } = chat([chatStream(join(OPENAI_FIXTURES, "deepseek-tool-call.chunks.txt"))]);
    const turn = AgentTurn.fromResponse((await adapter.streamTurn(request(), signal())) ?? fail());
    const fragments = chunkLines(join(OPENAI_FIXTURES, "deepseek-tool-call.chunks.txt")).filter((c) =>
      JSON.stringify(c).includes('"tool_calls"'),
    );
    expect(fragments.length).toBeGreaterThan(5);
    expect(turn.toolCalls).toEqual([
      { id: "call_00_ioIn7yN9p1ZOMNpDLwd4MgAF", name: "weather", input: { location: "San Francisco" } },
    ]);
    expect(turn.providerStopReason).toBe("tool_use");
    expect(turn.usage).toEqual({ inputTokens: 339, outputTokens: 83 });
  });

  it("sends DeepSeek's reasoning back on the next request, beside the tool call and its result", async () => {
    const { adapter, sent } = chat([
      chatStream(join(OPENAI_FIXTURES, "deepseek-tool-call.chunks.txt")),
      chatStream(join(OPENAI_FIXTURES, "deepseek-reasoning.chunks.txt")),
    ]);
    const history: MessageParam[] = [{ role: "user", content: "What is the weather in San Francisco?" }];
    const first = AgentTurn.fromResponse((await adapter.streamTurn(request(history), signal())) ?? fail());
    history.push({ role: "assistant", content: [...first.historyContent] });
    history.push({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: first.toolCalls[0].id, content: "18°C, fog" }],
    });
    await adapter.streamTurn(request(history), signal());
    const messages = sent[1].messages as Record<string, unknown>[];
    expect(messages[1]).toEqual({
      role: "assistant",
      content: null,
      tool_calls: [
        {
          id: "call_00_ioIn7yN9p1ZOMNpDLwd4MgAF",
          type: "function",
          function: { name: "weather", arguments: '{"location":"San Francisco"}' },
        },
      ],
      reasoning_content: chatOracle("deepseek-tool-call").reasoning,
    });
    expect(messages[2]).toEqual({
      role: "tool",
      tool_call_id: "call_00_ioIn7yN9p1ZOMNpDLwd4MgAF",
      content: "18°C, fog",
    });
  });

  it("reads xAI's whole-call chunk and its usage chunk without choices", async () => {
    const { adapter } = chat([chatStream(join(OPENAI_FIXTURES, "xai-tool-call.chunks.txt"))]);
    const turn = AgentTurn.fromResponse((await adapter.streamTurn(request(), signal())) ?? fail());
    expect(turn.toolCalls).toEqual([{ id: "call_79382389", name: "weather", input: { location: "San Francisco" } }]);
    expect(turn.usage).toEqual({ inputTokens: 307, outputTokens: 26 });
  });

  it.each([
    ["openai-text", 0, "end_turn"],
    ["deepseek-reasoning", 0, "end_turn"],
    ["deepseek-tool-call", 1, "tool_use"],
    ["xai-tool-call", 1, "tool_use"],
  ] as const)("reads the whole %s body the same way: %i tool call(s), %s", async (name, calls, stop) => {
    const { client } = chat([jsonBody(join(OPENAI_FIXTURES, `${name}.json`))]);
    const completion = await client.chat.completions.create({
      model: "recorded",
      messages: [{ role: "user", content: "x" }],
    });
    const turn = AgentTurn.fromResponse(messageFromChat(completion));
    expect(turn.text).toBe(completion.choices[0].message.content ?? "");
    expect(turn.toolCalls).toHaveLength(calls);
    expect(turn.providerStopReason).toBe(stop);
    expect(turn.usage.inputTokens).toBe(completion.usage?.prompt_tokens);
  });
});

describe("Responses API recordings, through the openai-responses adapter", () => {
  it("refuses a recorded stream whose first and last events are cut short: it is no turn", async () => {
    // parallel-tool-call-wrapper.1 was recorded with response.created and response.completed
    // missing their closing brace: the guard finds no Responses API event it can read first
    const { adapter, sent } = responses(typedStreams(join(OPENAI_FIXTURES, "parallel-tool-call-wrapper.1.chunks.txt")));
    const call = adapter.streamTurn(request(), signal());
    await expect(call).rejects.toBeInstanceOf(EndpointError);
    await expect(call).rejects.toThrow(/first event named "response.created", not a Responses API stream/);
    expect(sent).toHaveLength(3); // it failed before any content: sent again twice
  });

  it("runs a recorded four-turn exchange: reasoning sent back unchanged, as its done event gave it", async () => {
    const file = join(OPENAI_FIXTURES, "openai-reasoning-encrypted-content.1.chunks.txt");
    const streams = typedStreams(file);
    expect(streams).toHaveLength(4);
    const { adapter, sent } = responses(streams);
    const history: MessageParam[] = [{ role: "user", content: "Compute (12 + 7) * 3 * 10 with the calculator." }];
    const results = ["19", "57", "570"];
    const turns: AgentTurn[] = [];
    for (let i = 0; i < 4; i++) {
      const turn = AgentTurn.fromResponse((await adapter.streamTurn(request(history), signal())) ?? fail());
      turns.push(turn);
      history.push({ role: "assistant", content: [...turn.historyContent] });
      if (turn.toolCalls.length === 0) break;
      history.push({
        role: "user",
        content: turn.toolCalls.map((call) => ({
          type: "tool_result" as const,
          tool_use_id: call.id,
          content: results[i],
        })),
      });
    }
    expect(turns.map((t) => t.toolCalls.map((c) => c.input))).toEqual([
      [{ a: 12, b: 7, op: "add" }],
      [{ a: 19, b: 3, op: "multiply" }],
      [{ a: 57, b: 10, op: "multiply" }],
      [],
    ]);
    expect(turns[3].text).toBe("The final result is **570**.");
    // the item the done event carried, not the added one: its encrypted_content differs
    const lines = chunkLines(file);
    const added = lines.find((l) => l.type === "response.output_item.added") as { item: { encrypted_content: string } };
    const done = lines.find((l) => l.type === "response.output_item.done") as { item: Record<string, unknown> };
    expect(done.item.encrypted_content).not.toBe(added.item.encrypted_content);
    const input = sent[1].input as Record<string, unknown>[];
    expect(input[1]).toEqual(done.item);
    expect(input[2]).toMatchObject({
      type: "function_call",
      call_id: "call_AB6AaRZ1FYZB2RwS6A5vbdqn",
      name: "calculator",
    });
    expect(input[3]).toEqual({ type: "function_call_output", call_id: "call_AB6AaRZ1FYZB2RwS6A5vbdqn", output: "19" });
    expect(sent[1]).toMatchObject({ store: false, include: ["reasoning.encrypted_content"] });
  });

  it("fails on the recorded error event, after the first send and its two retries (no content came)", async () => {
    const { adapter, sent } = responses(typedStreams(join(OPENAI_FIXTURES, "openai-error.1.chunks.txt")));
    const call = adapter.streamTurn(request(), signal());
    await expect(call).rejects.toBeInstanceOf(APIError);
    await expect(call).rejects.toThrow(/exceeded your current quota/);
    expect(sent).toHaveLength(3);
  });

  it("reads the recorded error body as the SDK's rate-limit error", async () => {
    const { adapter, sent } = responses([jsonBody(join(OPENAI_FIXTURES, "openai-error.1.json"), 429)]);
    await expect(adapter.streamTurn(request(), signal())).rejects.toBeInstanceOf(RateLimitError);
    expect(sent).toHaveLength(1);
  });

  it.each([
    ["parallel-tool-call-wrapper.1", "tool_use"],
    ["openai-reasoning-encrypted-content.1", "end_turn"],
  ])("reads the whole %s body the same way, ending %s", async (name, stop) => {
    const { client } = responses([jsonBody(join(OPENAI_FIXTURES, `${name}.json`))]);
    const response = await client.responses.create({ model: "recorded", input: "x" });
    const turn = AgentTurn.fromResponse(messageFromResponse(response));
    expect(turn.text).toBe(response.output_text);
    expect(turn.providerStopReason).toBe(stop);
    const reasoning = (turn.historyContent as unknown[]).filter(isReasoningBlock);
    expect(reasoning.map((r) => r.item)).toEqual(response.output.filter((item) => item.type === "reasoning"));
  });
});

describe("Messages API recordings, through the anthropic adapter", () => {
  const anthropic = (recordings: Recording[]) => {
    const replay = replayFetch(recordings);
    const client = new Anthropic({
      apiKey: "k",
      baseURL: "http://recorded.invalid",
      maxRetries: 0,
      fetch: replay.fetch,
      middleware: [endpointGuard({ timeoutMs: 5000 })],
    });
    return { adapter: anthropicAdapter(client, { retryDelayMs: 1 }), sent: replay.sent };
  };
  const stream = (name: string) => typedStreams(join(ANTHROPIC_FIXTURES, `${name}.chunks.txt`), "message_start");

  it.each([
    ["anthropic-text", 0, "end_turn"],
    ["anthropic-tool-no-args", 1, "tool_use"],
    ["anthropic-issue-11719-quoted-tool-input", 1, "tool_use"],
    ["anthropic-refusal", 0, "refusal"],
  ] as const)("replays %s: %i tool call(s), %s, as the recorded JSON says", async (name, calls, stop) => {
    const { adapter } = anthropic(stream(name));
    const turn = AgentTurn.fromResponse((await adapter.streamTurn(request(), signal())) ?? fail());
    const json = AgentTurn.fromResponse(JSON.parse(readFileSync(join(ANTHROPIC_FIXTURES, `${name}.json`), "utf8")));
    expect(turn.toolCalls.map((c) => [c.name, c.input, c.inputError])).toEqual(
      json.toolCalls.map((c) => [c.name, c.input, c.inputError]),
    );
    expect(turn.toolCalls).toHaveLength(calls);
    expect(turn.providerStopReason).toBe(stop);
  });

  it("keeps a recorded thinking block and its signature, and sends it back to Anthropic only", async () => {
    const { adapter, sent } = anthropic([...stream("anthropic-clear-thinking.1"), ...stream("anthropic-text")]);
    const history: MessageParam[] = [{ role: "user", content: "think" }];
    const first = AgentTurn.fromResponse((await adapter.streamTurn(request(history), signal())) ?? fail());
    expect(first.historyContent[0]).toMatchObject({ type: "thinking", signature: expect.any(String) });
    history.push({ role: "assistant", content: [...first.historyContent] }, { role: "user", content: "more" });
    await adapter.streamTurn(request(history), signal());
    expect((sent[1].messages as MessageParam[])[1]).toEqual(history[1]);

    const other = chat([chatStream(join(OPENAI_FIXTURES, "openai-text.chunks.txt"))]);
    await other.adapter.streamTurn(request(history), signal());
    const assistant = (other.sent[0].messages as Record<string, unknown>[])[1];
    expect(assistant).toEqual({ role: "assistant", content: first.text });
  });
});

function fail(): never {
  throw new Error("the turn was aborted");
}
