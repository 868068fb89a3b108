import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import Anthropic, { APIError } from "@anthropic-ai/sdk";
import type { Message, MessageCreateParamsNonStreaming } from "@anthropic-ai/sdk/resources/messages";
import { reply, ScriptedModel, type ScriptStep, streamEvents, text, textReply, toolUse } from "@harness/scripted-model";
import { AgentTurn, MAX_INPUT_DEPTH } from "@harness/shared";
import { describe, expect, it } from "vitest";
import { parseToolInput, STREAM_RETRIES, StreamError, streamTurn } from "../src/stream-turn.ts";

/** Real recorded responses (see the README there), kept once in the repository for every package's tests. */
const FIXTURES = join(import.meta.dirname, "..", "..", "testkit", "fixtures", "anthropic");

const params: MessageCreateParamsNonStreaming = {
  model: "test-model",
  max_tokens: 1024,
  messages: [{ role: "user", content: "the prompt" }],
};

/** Stream one scripted step; return what came back and what emit heard. */
async function stream(step: ScriptStep, signal = new AbortController().signal) {
  const model = new ScriptedModel({ script: [step] });
  const heard = { starts: 0, text: [] as string[] };
  const message = await streamTurn(model.client({ maxRetries: 0 }), params, signal, (event) => {
    if (event.type === "stream_start") heard.starts++;
    else heard.text.push(event.text);
  });
  return { message, heard, model };
}

/**
 * A client whose every request is answered with a recorded stream: `event: <type>\ndata: <line>\n\n`
 * for each line, sent in odd-sized pieces so events and characters straddle reads as on a socket.
 */
function recordedClient(chunksFile: string): Anthropic {
  const lines = readFileSync(chunksFile, "utf8").split("\n").filter(Boolean);
  const bytes = new TextEncoder().encode(
    lines.map((line) => `event: ${JSON.parse(line).type}\ndata: ${line}\n\n`).join(""),
  );
  const body = () => {
    let offset = 0;
    return new ReadableStream<Uint8Array>({
      pull(controller) {
        if (offset >= bytes.length) return controller.close();
        controller.enqueue(bytes.subarray(offset, offset + 13));
        offset += 13;
      },
    });
  };
  return new Anthropic({
    apiKey: "k",
    baseURL: "http://recorded.invalid",
    maxRetries: 0,
    fetch: async () => new Response(body(), { status: 200, headers: { "content-type": "text/event-stream" } }),
  });
}

describe("streamTurn", () => {
  it("hands the text on as it arrives and returns the whole message", async () => {
    const { message, heard } = await stream(textReply("The answer is a longer sentence than one delta holds."));
    expect(heard.starts).toBe(1);
    expect(heard.text.length).toBeGreaterThan(1);
    expect(heard.text.join("")).toBe("The answer is a longer sentence than one delta holds.");
    expect(message).toMatchObject({
      role: "assistant",
      content: [{ type: "text", text: "The answer is a longer sentence than one delta holds." }],
      stop_reason: "end_turn",
    });
  });

  it("parses a tool call's input, streamed in several pieces, once its block is complete", async () => {
    const input = { path: "src/some/long/path/to/a/file.ts", limit: 20 };
    const step = reply([text("Reading."), toolUse("read_file", input, "toolu_1")]);
    const wire = streamEvents(step, { messageId: "m", model: "m", toolUseId: (i) => `t${i}`, inputTokens: 0 });
    const pieces = wire.filter((e) => (e.data.delta as { type?: string } | undefined)?.type === "input_json_delta");
    expect(pieces.length).toBeGreaterThan(2);
    const { message } = await stream(step);
    expect(message?.content).toEqual([
      { type: "text", text: "Reading." },
      { type: "tool_use", id: "toolu_1", name: "read_file", input },
    ]);
    expect(message?.stop_reason).toBe("tool_use");
  });

  it.each([
    ["cut off", '{"command": "touch pwned"'],
    ["malformed", '{"command": "ls",}'],
    ["an array, not an object", '["ls"]'],
  ])("keeps a tool input that is %s as its raw text, which AgentTurn turns into an input error", async (_, raw) => {
    const { message } = await stream(reply([{ type: "tool_use", name: "bash", rawInput: raw, id: "toolu_1" }]));
    expect(message?.content).toEqual([{ type: "tool_use", id: "toolu_1", name: "bash", input: raw }]);
    const turn = AgentTurn.fromResponse(message as Message);
    expect(turn.toolCalls[0].inputError).toContain(raw);
    expect(turn.historyContent).toEqual([{ type: "tool_use", id: "toolu_1", name: "bash", input: {} }]);
  });

  it("never hands over a cut input as an object, which the SDK's messages.stream helper does", async () => {
    const cut = reply([{ type: "tool_use", name: "bash", rawInput: '{"command": "rm x"', id: "toolu_1" }]);
    // the helper's forgiving partial-JSON parse completes what the model never finished writing
    const helper = await new ScriptedModel({ script: [cut] }).client().messages.stream(params).finalMessage();
    expect(helper.content).toEqual([{ type: "tool_use", id: "toolu_1", name: "bash", input: { command: "rm x" } }]);
    const { message } = await stream(cut);
    expect(message?.content).toEqual([{ type: "tool_use", id: "toolu_1", name: "bash", input: '{"command": "rm x"' }]);
  });

  it("reads an empty tool input as {}", async () => {
    const { message } = await stream(reply([{ type: "tool_use", name: "list", rawInput: "", id: "toolu_1" }]));
    expect(message?.content).toEqual([{ type: "tool_use", id: "toolu_1", name: "list", input: {} }]);
  });

  it("throws a StreamError for a stream that ends without message_stop", async () => {
    await expect(stream({ kind: "no_message_stop", reply: textReply("almost done") })).rejects.toThrow(
      /ended without message_stop/,
    );
  });

  it("throws for an SSE error event after content arrived, never returning the text before it", async () => {
    const observed: string[] = [];
    const model = new ScriptedModel({ script: [{ kind: "sse_error", afterEvents: 4, reply: textReply("partial") }] });
    const error = await streamTurn(model.client({ maxRetries: 0 }), params, new AbortController().signal, (event) => {
      if (event.type === "text") observed.push(event.text);
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StreamError);
    expect((error as Error).message).toMatch(/after its content had started/);
    expect(((error as Error).cause as APIError).type).toBe("overloaded_error");
    expect(observed).toEqual(["partial"]); // shown as it arrived, but never returned as an answer
    expect(model.requests).toHaveLength(1); // not sent again: the same request might answer differently
  });

  it.each([
    ["an SSE error event", { kind: "sse_error", afterEvents: 1 }],
    ["a cut connection", { kind: "cut", afterEvents: 1 }],
    ["an end without message_stop", { kind: "no_message_stop", reply: { kind: "reply", content: [] } }],
  ] as [string, ScriptStep][])("sends the request again after %s before any content", async (_, fault) => {
    const model = new ScriptedModel({ script: [fault, textReply("the answer")] });
    const message = await streamTurn(
      model.client({ maxRetries: 0 }),
      params,
      new AbortController().signal,
      undefined,
      1,
    );
    expect(message?.content).toEqual([{ type: "text", text: "the answer" }]);
    expect(model.requests).toHaveLength(2);
  });

  it(`gives up after ${STREAM_RETRIES} retries of a stream that fails before any content`, async () => {
    const fault: ScriptStep = { kind: "sse_error", afterEvents: 1 };
    const model = new ScriptedModel({ script: [fault, fault, fault, textReply("too late")] });
    const error = await streamTurn(
      model.client({ maxRetries: 0 }),
      params,
      new AbortController().signal,
      undefined,
      1,
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    expect(model.requests).toHaveLength(STREAM_RETRIES + 1);
  });

  it(`throws a StreamError, not fetch's bare TypeError, when a cut before any content recurs past ${STREAM_RETRIES} retries`, async () => {
    const cut: ScriptStep = { kind: "cut", afterEvents: 1 };
    const model = new ScriptedModel({ script: [cut, cut, cut, textReply("too late")] });
    const error = await streamTurn(
      model.client({ maxRetries: 0 }),
      params,
      new AbortController().signal,
      undefined,
      1,
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StreamError);
    expect((error as Error).message).toBe("the stream broke off (terminated: the scripted connection was cut)");
    expect((error as Error).cause).toBeInstanceOf(TypeError);
    expect(model.requests).toHaveLength(STREAM_RETRIES + 1);
  });

  it.each([1, 3, 6])("throws for a connection cut after %i events", async (afterEvents) => {
    await expect(
      stream({ kind: "cut", afterEvents, reply: reply([text("hi"), toolUse("bash", { command: "ls" })]) }),
    ).rejects.toThrow();
  });

  it("returns null when the signal aborts it while the model has not answered", async () => {
    const controller = new AbortController();
    const model = new ScriptedModel({ script: [{ kind: "hang" }] });
    const pending = streamTurn(model.client({ maxRetries: 0 }), params, controller.signal);
    while (model.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    expect(await pending).toBeNull();
  });

  it("returns null when the signal aborts it mid-stream, however much has arrived", async () => {
    const controller = new AbortController();
    const model = new ScriptedModel({
      script: [reply([text("one two three four five six seven eight nine ten eleven twelve")], { eventDelayMs: 20 })],
    });
    const message = await streamTurn(model.client({ maxRetries: 0 }), params, controller.signal, (event) => {
      if (event.type === "text") controller.abort(); // Ctrl-C on the first words
    });
    expect(message).toBeNull();
  });

  it("carries the usage of message_start, updated by message_delta", async () => {
    const { message } = await stream(textReply("ok", { usage: { input_tokens: 120, output_tokens: 7 } }));
    expect(message?.usage).toMatchObject({ input_tokens: 120, output_tokens: 7 });
  });
});

describe("streamTurn on recorded streams", () => {
  const files = readdirSync(FIXTURES);
  const recorded = files.filter((f) => f.endsWith(".chunks.txt")).map((f) => f.replace(/\.chunks\.txt$/, ""));
  const withJson = recorded.filter((name) => files.includes(`${name}.json`));

  it("finds the recorded fixtures", () => {
    expect(withJson).toEqual(
      expect.arrayContaining(["anthropic-issue-11719-quoted-tool-input", "anthropic-tool-no-args"]),
    );
  });

  it.each(withJson)(
    "rebuilds %s into the blocks, tool inputs and stop reason of the recorded JSON response",
    async (name) => {
      const streamed = await streamTurn(
        recordedClient(join(FIXTURES, `${name}.chunks.txt`)),
        params,
        new AbortController().signal,
      );
      const json = JSON.parse(readFileSync(join(FIXTURES, `${name}.json`), "utf8")) as Message;
      const shape = (m: Message) =>
        m.content.map((b) => (b.type === "tool_use" ? { type: b.type, name: b.name, input: b.input } : b.type));
      expect(streamed && shape(streamed)).toEqual(shape(json));
      expect(streamed?.stop_reason).toBe(json.stop_reason);
      expect(() => AgentTurn.fromResponse(streamed as Message)).not.toThrow();
    },
  );

  it.each(recorded)("rebuilds the text of %s from exactly its text deltas", async (name) => {
    const file = join(FIXTURES, `${name}.chunks.txt`);
    const events = readFileSync(file, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    const expected = events
      .filter((e) => e.type === "content_block_delta" && e.delta.type === "text_delta")
      .map((e) => e.delta.text)
      .join("");
    const streamed = await streamTurn(recordedClient(file), params, new AbortController().signal);
    expect(streamed).not.toBeNull();
    expect(AgentTurn.fromResponse(streamed as Message).text).toBe(expected);
  });

  it("parses the quoted tool input of issue 11719 with its escaped quotes intact, and keeps its caller field", async () => {
    const name = "anthropic-issue-11719-quoted-tool-input";
    const streamed = await streamTurn(
      recordedClient(join(FIXTURES, `${name}.chunks.txt`)),
      params,
      new AbortController().signal,
    );
    const json = JSON.parse(readFileSync(join(FIXTURES, `${name}.json`), "utf8"));
    expect(streamed?.content).toEqual([
      {
        type: "tool_use",
        id: "toolu_01Cr31vcGoeeRgi3Eo5Ds8qN",
        name: "website_update",
        input: json.content[0].input,
        caller: { type: "direct" },
      },
    ]);
    const turn = AgentTurn.fromResponse(streamed as Message);
    expect(turn.toolCalls[0].inputError).toBeUndefined();
    expect(String((turn.toolCalls[0].input.tasks as { description: string }[])[0].description)).toContain(
      '"What should I do next after this run?"',
    );
  });

  it("reads a tool call with no arguments, streamed as one empty delta, as {}", async () => {
    const name = "anthropic-tool-no-args";
    const streamed = await streamTurn(
      recordedClient(join(FIXTURES, `${name}.chunks.txt`)),
      params,
      new AbortController().signal,
    );
    const turn = AgentTurn.fromResponse(streamed as Message);
    expect(turn.text).toBe("I'll update the issue list for you.");
    expect(turn.toolCalls).toEqual([{ id: "toolu_01QE1WLsSVp5hy5Q3GmGTmjP", name: "updateIssueList", input: {} }]);
  });

  it("rebuilds a thinking block with its signature", async () => {
    const file = join(FIXTURES, "anthropic-clear-thinking.1.chunks.txt");
    const deltas = readFileSync(file, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line))
      .filter((e) => e.type === "content_block_delta" && e.index === 0)
      .map((e) => e.delta);
    const streamed = await streamTurn(recordedClient(file), params, new AbortController().signal);
    expect(streamed?.content[0]).toEqual({
      type: "thinking",
      thinking: deltas.map((d) => d.thinking ?? "").join(""),
      signature: deltas.find((d) => d.type === "signature_delta").signature,
    });
  });

  it("keeps a block a newer delta fills in (a server compaction) whole, to send it back unchanged", async () => {
    const block = { type: "compaction", content: "## Task\n- the summary", encrypted_content: "b3BhcXVl" };
    const { message } = await stream(reply([{ type: "other", block }, text("Go on.")]));
    expect(message?.content).toEqual([block, { type: "text", text: "Go on." }]);
  });

  it("takes the usage message_delta reports over message_start's", async () => {
    const streamed = await streamTurn(
      recordedClient(join(FIXTURES, "anthropic-message-delta-input-tokens.chunks.txt")),
      params,
      new AbortController().signal,
    );
    expect(streamed?.usage).toMatchObject({ input_tokens: 61, output_tokens: 2 });
  });
});

describe("parseToolInput", () => {
  it("parses a JSON object, reads empty text as {}, and keeps anything else as its text", () => {
    expect(parseToolInput('{"a": 1}')).toEqual({ a: 1 });
    expect(parseToolInput("  ")).toEqual({});
    expect(parseToolInput('{"a": ')).toBe('{"a": ');
    expect(parseToolInput("null")).toBe("null");
    expect(parseToolInput("[1]")).toBe("[1]");
    expect(parseToolInput('"text"')).toBe('"text"');
  });

  it("keeps input nested deeper than MAX_INPUT_DEPTH as its text: the message never holds what no walk could read", () => {
    const deep = `{"x":${"[".repeat(10_000)}${"]".repeat(10_000)}}`;
    expect(parseToolInput(deep)).toBe(deep);
    const fits = `{"x":${"[".repeat(MAX_INPUT_DEPTH - 1)}${"]".repeat(MAX_INPUT_DEPTH - 1)}}`;
    expect(parseToolInput(fits)).toEqual(JSON.parse(fits));
  });
});
