import Anthropic, {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  AuthenticationError,
  BadRequestError,
  InternalServerError,
  RateLimitError,
} from "@anthropic-ai/sdk";
import type { MessageCreateParamsNonStreaming, MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { AgentTurn, bashToolDefinition } from "@harness/shared";
import { describe, expect, it } from "vitest";
import { reply, type ScriptStep, text, textReply, toolUse } from "../src/script.ts";
import { SCRIPTED_MODEL_ID, ScriptedModel } from "../src/scripted-model.ts";

const prompt: MessageParam[] = [{ role: "user", content: "hi" }];
const params = (messages: MessageParam[] = prompt): MessageCreateParamsNonStreaming => ({
  model: "claude-test",
  max_tokens: 1024,
  messages,
});

/** A model and an SDK client wired to it in process, with quick retries allowed. */
function scripted(script: ScriptStep[], maxRetries = 2) {
  const model = new ScriptedModel({ script });
  return { model, client: model.client({ maxRetries }) };
}

/** Iterate a raw event stream, keeping the event types seen and the error it ended with (if any). */
async function drain(stream: AsyncIterable<{ type: string }>): Promise<{ types: string[]; error?: unknown }> {
  const types: string[] = [];
  try {
    for await (const event of stream) types.push(event.type);
    return { types };
  } catch (error) {
    return { types, error };
  }
}

describe("ScriptedModel through the real SDK", () => {
  describe("replies", () => {
    it("answers a non-streaming request with a JSON message", async () => {
      const { client } = scripted([textReply("Hello.", { usage: { input_tokens: 12, output_tokens: 3 } })]);
      const message = await client.messages.create(params());
      expect(message).toMatchObject({
        id: "msg_scripted_0001",
        type: "message",
        role: "assistant",
        model: SCRIPTED_MODEL_ID,
        content: [{ type: "text", text: "Hello." }],
        stop_reason: "end_turn",
        stop_sequence: null,
        usage: { input_tokens: 12, output_tokens: 3 },
      });
    });

    it("gives tool calls ids and the tool_use stop reason", async () => {
      const { client } = scripted([
        reply([
          text("Running."),
          toolUse("bash", { command: "ls" }),
          toolUse("bash", { command: "pwd" }, "toolu_mine"),
        ]),
      ]);
      const message = await client.messages.create(params());
      expect(message.stop_reason).toBe("tool_use");
      expect(message.content).toEqual([
        { type: "text", text: "Running." },
        { type: "tool_use", id: "toolu_scripted_0001_1", name: "bash", input: { command: "ls" } },
        { type: "tool_use", id: "toolu_mine", name: "bash", input: { command: "pwd" } },
      ]);
    });

    it("numbers messages and tool ids by request", async () => {
      const { client } = scripted([textReply("one"), reply([toolUse("bash", { command: "ls" })])]);
      await client.messages.create(params());
      const second = await client.messages.create(params());
      expect(second.id).toBe("msg_scripted_0002");
      expect(second.content[0]).toMatchObject({ id: "toolu_scripted_0002_0" });
    });

    it("numbers past every scripted id the history holds, as a new process resuming a conversation does", async () => {
      const { client } = scripted([reply([toolUse("bash", { command: "ls" })])]);
      const earlier = {
        type: "tool_use" as const,
        id: "toolu_scripted_0007_0",
        name: "bash",
        input: { command: "pwd" },
      };
      const message = await client.messages.create({
        ...params(),
        messages: [
          { role: "user", content: "first" },
          { role: "assistant", content: [earlier] },
          {
            role: "user",
            content: [
              { type: "tool_result", tool_use_id: earlier.id, content: "/" },
              { type: "text", text: "again" },
            ],
          },
        ],
      });
      expect(message.id).toBe("msg_scripted_0008");
      expect(message.content[0]).toMatchObject({ id: "toolu_scripted_0008_0" });
    });

    it("sends the stop reason the script gives, even with a tool call", async () => {
      const { client } = scripted([reply([toolUse("bash", { command: "ls" })], { stopReason: "max_tokens" })]);
      const message = await client.messages.create(params());
      expect(message.stop_reason).toBe("max_tokens");
    });

    it("estimates usage when the script gives none", async () => {
      const { client } = scripted([textReply("Hello.")]);
      const message = await client.messages.create(params());
      expect(message.usage.input_tokens).toBeGreaterThan(0);
      expect(message.usage.output_tokens).toBeGreaterThan(0);
    });

    it("answers under its own model id, never the Claude id the request names", async () => {
      const { client } = scripted([textReply("a"), textReply("b")]);
      expect(params().model).toBe("claude-test");
      expect((await client.messages.create(params())).model).toBe(SCRIPTED_MODEL_ID);
      const stream = await client.messages.create({ ...params(), stream: true });
      for await (const event of stream) {
        if (event.type === "message_start") expect(event.message.model).toBe(SCRIPTED_MODEL_ID);
      }
      expect(SCRIPTED_MODEL_ID).toBe("scripted-model");
    });

    it("answers as the model it was given", async () => {
      const fixed = new ScriptedModel({ script: [textReply("a")], model: "pinned-model" });
      expect((await fixed.client().messages.create(params())).model).toBe("pinned-model");
    });

    it("sends thinking with its signature and blocks of other types as written", async () => {
      const webSearch = { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "x" } };
      const { client } = scripted([
        reply(
          [{ type: "thinking", thinking: "hm", signature: "sig" }, { type: "other", block: webSearch }, text("ok")],
          {
            stopReason: "pause_turn",
          },
        ),
      ]);
      const message = await client.messages.create(params());
      expect(message.content).toEqual([{ type: "thinking", thinking: "hm", signature: "sig" }, webSearch, text("ok")]);
      expect(message.stop_reason).toBe("pause_turn");
    });

    it("streams the same message it sends as JSON", async () => {
      const script = () => [
        reply(
          [
            { type: "thinking", thinking: "Let me think about this for a while, it is long.", signature: "sig-1" },
            text("Here is a rather long text that is split into several deltas — with ünïcödé 🎉 too."),
            toolUse("bash", { command: "ls -la && echo 'a \"quoted\" word'" }),
          ],
          { usage: { input_tokens: 40, output_tokens: 9 } },
        ),
      ];
      const json = await scripted(script()).client.messages.create(params());
      const streamed = await scripted(script()).client.messages.stream(params()).finalMessage();
      expect(streamed.content).toEqual(json.content);
      expect(streamed.stop_reason).toBe(json.stop_reason);
      expect(streamed.usage).toMatchObject({ input_tokens: 40, output_tokens: 9 });
      expect(streamed.id).toBe(json.id);
    });

    it("streams a server tool's call as the API does: an empty input, then its JSON in deltas", async () => {
      const webSearch = {
        type: "server_tool_use",
        id: "srvtoolu_1",
        name: "web_search",
        input: { query: "agent loops in TypeScript, with a long query" },
      };
      const script = () => [
        reply([text("Searching."), { type: "other", block: webSearch }], { stopReason: "pause_turn" }),
      ];
      const json = await scripted(script()).client.messages.create(params());
      const stream = await scripted(script()).client.messages.create({ ...params(), stream: true });
      const events: { type: string; content_block?: unknown; delta?: { type: string } }[] = [];
      for await (const event of stream) events.push(event as (typeof events)[number]);
      const start = events.find((e) => e.type === "content_block_start" && JSON.stringify(e).includes("srvtoolu_1"));
      expect(start?.content_block).toEqual({ ...webSearch, input: {} });
      expect(events.filter((e) => e.delta?.type === "input_json_delta").length).toBeGreaterThan(2);
      const streamed = await scripted(script()).client.messages.stream(params()).finalMessage();
      expect(streamed.content).toEqual(json.content);
      expect(json.content[1]).toEqual(webSearch);
    });

    it("streams events in the order the API sends them", async () => {
      const { client } = scripted([reply([text("hi"), toolUse("bash", { command: "ls" })])]);
      const { types, error } = await drain(await client.messages.create({ ...params(), stream: true }));
      expect(error).toBeUndefined();
      expect(types[0]).toBe("message_start");
      expect(types.slice(-2)).toEqual(["message_delta", "message_stop"]);
      expect(types.filter((t) => t === "content_block_start")).toHaveLength(2);
      expect(types.filter((t) => t === "content_block_stop")).toHaveLength(2);
    });

    it("asks the brain once the script is empty, the script first", async () => {
      const seen: string[] = [];
      const model = new ScriptedModel({
        script: [textReply("from the script")],
        brain: (request) => {
          seen.push(request.model);
          return textReply("from the brain");
        },
      });
      const client = model.client();
      expect((await client.messages.create(params())).content).toEqual([text("from the script")]);
      expect((await client.messages.create(params())).content).toEqual([text("from the brain")]);
      expect(seen).toEqual(["claude-test"]);
    });

    it("takes steps pushed after it was built, and counts those left", async () => {
      const model = new ScriptedModel();
      model.push(textReply("a"), textReply("b"));
      expect(model.pending).toBe(2);
      await model.client().messages.create(params());
      expect(model.pending).toBe(1);
    });
  });

  describe("recorded requests", () => {
    it("records what the loop sent: model, history, tools, system, headers", async () => {
      const { model, client } = scripted([textReply("ok")]);
      const history: MessageParam[] = [
        { role: "user", content: "list files" },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "bash", input: { command: "ls" } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "a.ts\n[exit code 0]" }] },
      ];
      await client.messages.create({ ...params(history), system: "Be brief.", tools: [bashToolDefinition] });
      expect(model.requests).toHaveLength(1);
      const [request] = model.requests;
      expect(request.method).toBe("POST");
      expect(request.path).toBe("/v1/messages");
      // this SDK sends its key as a bearer token; the API (and the scripted model) take either header
      expect(request.headers.authorization).toBe("Bearer scripted-model-key");
      expect(request.headers["anthropic-version"]).toBeDefined();
      expect(request.body.model).toBe("claude-test");
      expect(request.body.system).toBe("Be brief.");
      expect(request.body.messages).toEqual(history);
      expect(request.body.tools).toEqual([bashToolDefinition]);
      expect(request.body.stream).toBeUndefined();
    });

    it("records a streamed request as one", async () => {
      const { model, client } = scripted([textReply("ok")]);
      await client.messages.stream(params()).finalMessage();
      expect(model.requests[0].body.stream).toBe(true);
    });
  });

  describe("HTTP faults", () => {
    it.each([
      [429, "rate_limit_error"],
      [529, "overloaded_error"],
      [500, "api_error"],
    ])("lets the SDK retry a %i that says when, then answers", async (status) => {
      const { model, client } = scripted([{ kind: "http_error", status, retryAfterMs: 1 }, textReply("made it")], 2);
      const message = await client.messages.create(params());
      expect(message.content).toEqual([text("made it")]);
      expect(model.requests).toHaveLength(2);
      expect(model.requests[1].body).toEqual(model.requests[0].body);
    });

    it("fails with the 529 after the SDK's retries run out", async () => {
      const overloaded: ScriptStep = { kind: "http_error", status: 529, retryAfterMs: 1 };
      const { model, client } = scripted([overloaded, overloaded, overloaded, textReply("too late")], 2);
      const error = await client.messages.create(params()).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(APIError);
      expect(error).toMatchObject({ status: 529, type: "overloaded_error" });
      expect(model.requests).toHaveLength(3);
      expect(model.pending).toBe(1);
    });

    it("fails with a 429 as a RateLimitError when no retry is allowed", async () => {
      const { client } = scripted([{ kind: "http_error", status: 429 }], 0);
      const error = await client.messages.create(params()).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RateLimitError);
      expect((error as APIError).message).toMatch(/rate limit/);
    });

    it("fails with a 500 as an InternalServerError when no retry is allowed", async () => {
      const { model, client } = scripted([{ kind: "http_error", status: 500 }], 0);
      const error = await client.messages.create(params()).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InternalServerError);
      expect(error).toMatchObject({ status: 500 });
      expect(model.requests).toHaveLength(1);
    });

    it("does not retry a 401", async () => {
      const { model, client } = scripted([{ kind: "http_error", status: 401 }, textReply("never sent")], 3);
      const error = await client.messages.create(params()).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AuthenticationError);
      expect(error).toMatchObject({ status: 401, type: "authentication_error" });
      expect(model.requests).toHaveLength(1);
      expect(model.pending).toBe(1);
    });

    it("sends the message the script gives", async () => {
      const { client } = scripted([{ kind: "http_error", status: 400, message: "prompt is too long" }], 0);
      await expect(client.messages.create(params())).rejects.toThrow(/400 .*prompt is too long/);
    });
  });

  describe("stream faults", () => {
    it("ends a stream with an error event as a thrown error, after the events before it", async () => {
      const { client } = scripted([{ kind: "sse_error", afterEvents: 4 }]);
      const { types, error } = await drain(await client.messages.create({ ...params(), stream: true }));
      expect(types).toEqual(["message_start", "content_block_start", "content_block_delta"]);
      expect(error).toBeInstanceOf(APIError);
      expect(error).toMatchObject({ status: undefined, type: "overloaded_error" });
    });

    it("rejects finalMessage on an error event", async () => {
      const { client } = scripted([{ kind: "sse_error", afterEvents: 2, errorType: "api_error" }]);
      await expect(client.messages.stream(params()).finalMessage()).rejects.toMatchObject({ type: "api_error" });
    });

    it("answers a non-streaming request that meets an error event with a 500", async () => {
      const { client } = scripted([{ kind: "sse_error", afterEvents: 2 }], 0);
      await expect(client.messages.create(params())).rejects.toBeInstanceOf(InternalServerError);
    });

    it("throws when the stream is cut mid-way", async () => {
      const { client } = scripted([{ kind: "cut", afterEvents: 5, reply: textReply("a long answer cut in two") }]);
      const { types, error } = await drain(await client.messages.create({ ...params(), stream: true }));
      expect(types.length).toBeGreaterThan(0);
      expect(types).not.toContain("message_stop");
      expect(error).toBeInstanceOf(Error);
      expect(String(error)).toMatch(/terminated/);
    });

    it("rejects finalMessage when the stream is cut", async () => {
      const { client } = scripted([{ kind: "cut", afterEvents: 3 }]);
      await expect(client.messages.stream(params()).finalMessage()).rejects.toThrow(/terminated/);
    });

    it("fails a non-streaming request whose connection is cut as a connection error", async () => {
      const { client } = scripted([{ kind: "cut", afterEvents: 0 }], 0);
      await expect(client.messages.create(params())).rejects.toBeInstanceOf(APIConnectionError);
    });

    it("ends a stream without message_stop quietly for raw events, so the harness must check", async () => {
      const { client } = scripted([{ kind: "no_message_stop" }]);
      const { types, error } = await drain(await client.messages.create({ ...params(), stream: true }));
      expect(error).toBeUndefined();
      expect(types).toContain("message_delta");
      expect(types).not.toContain("message_stop");
    });

    it("rejects finalMessage for a stream without message_stop", async () => {
      const { client } = scripted([{ kind: "no_message_stop" }]);
      await expect(client.messages.stream(params()).finalMessage()).rejects.toThrow(/without producing a Message/);
    });

    it("streams malformed tool input as sent, so only the complete text is parsed", async () => {
      const cut = '{"command": "ls';
      const { client } = scripted([reply([{ type: "tool_use", name: "bash", rawInput: cut }])]);
      const stream = await client.messages.create({ ...params(), stream: true });
      let input = "";
      for await (const event of stream) {
        if (event.type === "content_block_delta" && event.delta.type === "input_json_delta") {
          input += event.delta.partial_json;
        }
      }
      expect(input).toBe(cut);
      expect(() => JSON.parse(input)).toThrow();
    });

    it("shows why chapters read raw events: the SDK's helper hides malformed tool input", async () => {
      const { client } = scripted([reply([{ type: "tool_use", name: "bash", rawInput: '{"command": "ls' }])]);
      const message = await client.messages.stream(params()).finalMessage();
      // no error and no raw text: a partial parse the loop cannot tell from a real input
      expect(message.content[0]).toMatchObject({ type: "tool_use", input: expect.any(Object) });
      expect(typeof (message.content[0] as { input: unknown }).input).toBe("object");
    });

    it("sends malformed tool input as a string in JSON, which the turn reports as an input error", async () => {
      const { client } = scripted([reply([{ type: "tool_use", name: "bash", rawInput: '{"command": ' }])]);
      const message = await client.messages.create(params());
      expect(message.content[0]).toMatchObject({ type: "tool_use", input: '{"command": ' });
      const turn = AgentTurn.fromResponse(message);
      expect(turn.toolCalls[0].inputError).toMatch(/not a JSON object/);
    });
  });

  describe("waiting", () => {
    it("hangs until the request is aborted", async () => {
      const { client } = scripted([{ kind: "hang" }]);
      const controller = new AbortController();
      const pending = client.messages.create(params(), { signal: controller.signal });
      setTimeout(() => controller.abort(), 20);
      await expect(pending).rejects.toBeInstanceOf(APIUserAbortError);
    });

    it("hangs until the SDK's timeout, which is a timeout error", async () => {
      const { client } = scripted([{ kind: "hang" }], 0);
      const error = await client.messages.create(params(), { timeout: 100 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(APIConnectionTimeoutError);
    });

    it("can be aborted while it delays a reply", async () => {
      const { client } = scripted([textReply("late", { delayMs: 60_000 })]);
      const controller = new AbortController();
      const pending = client.messages.create(params(), { signal: controller.signal });
      setTimeout(() => controller.abort(), 20);
      await expect(pending).rejects.toBeInstanceOf(APIUserAbortError);
    });

    it("can be aborted between streamed events", async () => {
      const { client } = scripted([textReply("x".repeat(200), { eventDelayMs: 60_000 })]);
      const controller = new AbortController();
      const stream = client.messages.stream(params(), { signal: controller.signal });
      stream.on("connect", () => setTimeout(() => controller.abort(), 20));
      await expect(stream.finalMessage()).rejects.toBeInstanceOf(APIUserAbortError);
    });
  });

  describe("request checks, as the API makes them", () => {
    it("answers an invalid history with a 400 naming the problem, keeping its step", async () => {
      const { model, client } = scripted([textReply("not used")]);
      const invalid: MessageParam[] = [
        { role: "user", content: "one" },
        { role: "user", content: "two" },
      ];
      const error = await client.messages.create(params(invalid)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BadRequestError);
      expect((error as APIError).error).toEqual({
        type: "error",
        error: {
          type: "invalid_request_error",
          message:
            'messages: roles must alternate between "user" and "assistant", but found multiple "user" roles in a row',
        },
        request_id: "req_scripted",
      });
      expect(model.pending).toBe(1);
    });

    const toolUseBlock = (id: string) => ({ type: "tool_use" as const, id, name: "bash", input: { command: "ls" } });
    const toolResultBlock = (id: string) => ({ type: "tool_result" as const, tool_use_id: id, content: "ok" });
    it.each([
      [
        "a tool_use whose results are not in the very next message",
        [
          { role: "user", content: "go" },
          { role: "assistant", content: [toolUseBlock("toolu_1")] },
          { role: "user", content: "and?" },
        ],
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1. " +
          "Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
      ],
      [
        "text placed before the tool_result blocks",
        [
          { role: "user", content: "go" },
          { role: "assistant", content: [toolUseBlock("toolu_1")] },
          { role: "user", content: [{ type: "text", text: "here:" }, toolResultBlock("toolu_1")] },
        ],
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1. " +
          "Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
      ],
      [
        "an empty text block",
        [{ role: "user", content: [{ type: "text", text: "" }] }],
        "messages: text content blocks must be non-empty",
      ],
      [
        "a whitespace-only text block",
        [
          { role: "user", content: "go" },
          { role: "assistant", content: [{ type: "text", text: " \n" }] },
          { role: "user", content: "and?" },
        ],
        "messages: text content blocks must contain non-whitespace text",
      ],
      [
        "an assistant message first",
        [
          { role: "assistant", content: "Hello." },
          { role: "user", content: "hi" },
        ],
        'messages: first message must use the "user" role',
      ],
      [
        "two assistant messages in a row",
        [
          { role: "user", content: "hi" },
          { role: "assistant", content: "a" },
          { role: "assistant", content: "b" },
        ],
        'messages: roles must alternate between "user" and "assistant", but found multiple "assistant" roles in a row',
      ],
      [
        "a tool_result after a message without tool_use",
        [
          { role: "user", content: "hi" },
          { role: "assistant", content: "hello" },
          { role: "user", content: [toolResultBlock("toolu_1")] },
        ],
        "messages.2: `tool_result` block(s) provided when previous message does not contain any `tool_use` blocks",
      ],
      [
        "a tool_result without a matching tool_use",
        [
          { role: "user", content: "go" },
          { role: "assistant", content: [toolUseBlock("toolu_1")] },
          { role: "user", content: [toolResultBlock("toolu_1"), toolResultBlock("toolu_2")] },
        ],
        "messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_2. " +
          "Each `tool_result` block must have a corresponding `tool_use` block in the previous message.",
      ],
      [
        "a tool_use id used twice",
        [
          { role: "user", content: "go" },
          { role: "assistant", content: [toolUseBlock("toolu_1"), toolUseBlock("toolu_1")] },
          { role: "user", content: [toolResultBlock("toolu_1")] },
        ],
        "messages.1.content.1: `tool_use` ids must be unique",
      ],
      [
        "a tool_use id another provider gave (not the API's pattern)",
        [
          { role: "user", content: "go" },
          { role: "assistant", content: [toolUseBlock("functions.bash:0")] },
          { role: "user", content: [toolResultBlock("functions.bash:0")] },
        ],
        "messages.1.content.0.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'",
      ],
      [
        "a role the API does not know (the schema is checked before the history's rules)",
        [{ role: "system", content: "x" }],
        "messages.0.role: Input should be 'user' or 'assistant'",
      ],
      [
        "a content block that is not an object",
        [{ role: "user", content: [null, { type: "text", text: "hi" }] }],
        "messages.0.content.0: Input should be a valid dictionary or object to extract fields from",
      ],
    ] as [string, MessageParam[], string][])(
      "refuses %s with the API's 400 and its words",
      async (_what, history, message) => {
        const model = new ScriptedModel({ script: [textReply("not used")] });
        const response = await model.fetch("http://scripted/v1/messages", {
          method: "POST",
          headers: { "x-api-key": "k", "content-type": "application/json" },
          body: JSON.stringify(params(history)),
        });
        expect(response.status).toBe(400);
        expect(await response.json()).toEqual({
          type: "error",
          error: { type: "invalid_request_error", message },
          request_id: "req_scripted",
        });
        expect(model.pending).toBe(1);
        // and through the SDK, as a loop meets it
        const error = await model
          .client({ maxRetries: 0 })
          .messages.create(params(history))
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(BadRequestError);
        expect((error as BadRequestError).status).toBe(400);
      },
    );

    it("answers a message that is not an object with the API's 400 and its words", async () => {
      const model = new ScriptedModel({ script: [textReply("not used")] });
      const response = await model.fetch("http://scripted/v1/messages", {
        method: "POST",
        headers: { "x-api-key": "k", "content-type": "application/json" },
        body: JSON.stringify(params([null, { role: "user", content: "hi" }] as unknown as MessageParam[])),
      });
      expect(response.status).toBe(400);
      const json = (await response.json()) as { error: { message: string } };
      expect(json.error.message).toBe(
        "messages.0: Input should be a valid dictionary or object to extract fields from",
      );
    });

    it("answers a content block that is not an object with a 400, never a dropped connection", async () => {
      const { model, client } = scripted([textReply("not used")], 2);
      const odd = [{ role: "user", content: [null] }] as unknown as MessageParam[];
      await expect(client.messages.create(params(odd))).rejects.toBeInstanceOf(BadRequestError);
      expect(model.requests).toHaveLength(1);
    });

    it("answers an empty script with a 400 that says so", async () => {
      const { client } = scripted([], 0);
      await expect(client.messages.create(params())).rejects.toThrow(
        /400 .*scripted model: no scripted reply left for request #1/,
      );
    });

    it("answers a tool without an input_schema with a 400, but takes server tools", async () => {
      const { client } = scripted([textReply("ok")], 0);
      const bad = client.messages.create({ ...params(), tools: [{ name: "x" } as unknown as Anthropic.Tool] });
      await expect(bad).rejects.toThrow(/tools: each tool needs a name and an input_schema/);
      const serverTool = { type: "web_search_20250305", name: "web_search" } as Anthropic.WebSearchTool20250305;
      await expect(client.messages.create({ ...params(), tools: [serverTool] })).resolves.toBeDefined();
    });

    it.each([
      ["no model", { max_tokens: 10, messages: prompt }, 400, /model: Field required/],
      ["no max_tokens", { model: "m", messages: prompt }, 400, /max_tokens: Field required/],
      ["no messages", { model: "m", max_tokens: 10 }, 400, /messages: Field required/],
    ])("answers a body with %s with a 400", async (_what, body, status, message) => {
      const model = new ScriptedModel({ script: [textReply("not used")] });
      const response = await model.fetch("http://scripted/v1/messages", {
        method: "POST",
        headers: { "x-api-key": "k", "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(status);
      const json = (await response.json()) as { type: string; error: { type: string; message: string } };
      expect(json.type).toBe("error");
      expect(json.error.type).toBe("invalid_request_error");
      expect(json.error.message).toMatch(message);
    });

    it("answers a request without a key header with a 401", async () => {
      const model = new ScriptedModel({ script: [textReply("not used")] });
      const response = await model.fetch("http://scripted/v1/messages", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(params()),
      });
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ error: { type: "authentication_error" } });
      expect(model.pending).toBe(1);
    });

    it("takes an x-api-key header as the API does", async () => {
      const model = new ScriptedModel({ script: [textReply("ok")] });
      const response = await model.fetch("http://scripted/v1/messages", {
        method: "POST",
        headers: { "x-api-key": "k", "content-type": "application/json" },
        body: JSON.stringify(params()),
      });
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ content: [text("ok")] });
    });

    it("takes a bearer token from the SDK's authToken", async () => {
      const model = new ScriptedModel({ script: [textReply("ok")] });
      const client = new Anthropic({
        authToken: "token",
        apiKey: null,
        baseURL: "http://x.invalid",
        fetch: model.fetch,
      });
      expect((await client.messages.create(params())).content).toEqual([text("ok")]);
      expect(model.requests[0].headers.authorization).toBe("Bearer token");
    });

    it("answers a body that is not JSON with a 400", async () => {
      const model = new ScriptedModel();
      const response = await model.fetch("http://scripted/v1/messages", { method: "POST", body: "{not json" });
      expect(response.status).toBe(400);
    });

    it("answers another route with a 404", async () => {
      const model = new ScriptedModel();
      const response = await model.fetch("http://scripted/v1/models", { method: "GET" });
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ error: { type: "not_found_error" } });
    });
  });
});
