import OpenAI, { APIError, AuthenticationError, BadRequestError, InternalServerError } from "openai";
import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionChunk,
  ChatCompletionMessageParam,
} from "openai/resources/chat/completions";
import { describe, expect, it } from "vitest";
import { reply, type ScriptStep, text, textReply, toolUse } from "../src/script.ts";
import { ScriptedModel } from "../src/scripted-model.ts";
import { startScriptedServer } from "../src/start-scripted-server.ts";

function scripted(script: ScriptStep[], maxRetries = 0) {
  const model = new ScriptedModel({ script });
  const client = new OpenAI({
    apiKey: "scripted-model-key",
    baseURL: "http://scripted-model.invalid/v1",
    fetch: model.fetch,
    maxRetries,
  });
  return { model, client };
}

const prompt: ChatCompletionMessageParam[] = [{ role: "user", content: "hi" }];
const bash = { type: "function" as const, function: { name: "bash", parameters: { type: "object" } } };

async function chunks(
  stream: AsyncIterable<ChatCompletionChunk>,
): Promise<{ chunks: ChatCompletionChunk[]; error?: unknown }> {
  const seen: ChatCompletionChunk[] = [];
  try {
    for await (const chunk of stream) seen.push(chunk);
    return { chunks: seen };
  } catch (error) {
    return { chunks: seen, error };
  }
}

describe("ScriptedModel on /v1/chat/completions, through the openai SDK", () => {
  it("reads a user message's text parts as separate blocks, as the Messages API keeps them", async () => {
    const { model, client } = scripted([textReply("ok")]);
    await client.chat.completions.create({
      model: "gpt-test",
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "a summary" },
            { type: "text", text: "the prompt" },
          ],
        },
      ],
    });
    expect(model.requests[0].body.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "a summary" },
          { type: "text", text: "the prompt" },
        ],
      },
    ]);
  });

  it("answers with a chat.completion: text, tool calls with their arguments, finish reason, usage", async () => {
    const { client } = scripted([
      reply([text("Checking."), toolUse("bash", { command: "ls" }), toolUse("bash", { command: "pwd" })], {
        usage: { input_tokens: 20, output_tokens: 7 },
      }),
    ]);
    const completion = await client.chat.completions.create({ model: "gpt-test", messages: prompt, tools: [bash] });
    expect(completion.object).toBe("chat.completion");
    expect(completion.choices[0]).toMatchObject({
      finish_reason: "tool_calls",
      message: {
        role: "assistant",
        content: "Checking.",
        tool_calls: [
          { id: "toolu_scripted_0001_1", type: "function", function: { name: "bash", arguments: '{"command":"ls"}' } },
          { id: "toolu_scripted_0001_2", type: "function", function: { name: "bash", arguments: '{"command":"pwd"}' } },
        ],
      },
    });
    expect(completion.usage).toEqual({ prompt_tokens: 20, completion_tokens: 7, total_tokens: 27 });
  });

  it("maps the reply's stop reason to finish_reason, and passes an unknown one on", async () => {
    const { client } = scripted([
      textReply("a", { stopReason: "max_tokens" }),
      textReply("b", { stopReason: "refusal" }),
      textReply("c", { stopReason: "novel_reason" }),
    ]);
    const reasons = [];
    for (let i = 0; i < 3; i++) {
      const completion = await client.chat.completions.create({ model: "m", messages: prompt });
      reasons.push(completion.choices[0].finish_reason);
    }
    expect(reasons).toEqual(["length", "content_filter", "novel_reason"]);
  });

  it("streams the same turn: content deltas, tool call fragments by index, the finish reason, usage, [DONE]", async () => {
    const { client } = scripted([
      reply([
        { type: "thinking", thinking: "Let me look.", signature: "s" },
        text("Looking."),
        toolUse("bash", { command: "ls -la /tmp" }),
      ]),
    ]);
    const stream = await client.chat.completions.create({
      model: "m",
      messages: prompt,
      tools: [bash],
      stream: true,
      stream_options: { include_usage: true },
    });
    const { chunks: seen, error } = await chunks(stream);
    expect(error).toBeUndefined();
    const deltas = seen.flatMap((c) => c.choices.map((choice) => choice.delta as Record<string, unknown>));
    expect(deltas.map((d) => d.reasoning_content ?? "").join("")).toBe("Let me look.");
    expect(deltas.map((d) => d.content ?? "").join("")).toBe("Looking.");
    const fragments = deltas.flatMap((d) => (d.tool_calls as ChatCompletionChunk.Choice.Delta.ToolCall[]) ?? []);
    expect(fragments[0]).toMatchObject({
      index: 0,
      id: "toolu_scripted_0001_2",
      function: { name: "bash", arguments: "" },
    });
    expect(fragments.length).toBeGreaterThan(2); // the arguments come in several pieces
    expect(fragments.map((f) => f.function?.arguments ?? "").join("")).toBe('{"command":"ls -la /tmp"}');
    expect(seen.flatMap((c) => c.choices.map((choice) => choice.finish_reason)).filter(Boolean)).toEqual([
      "tool_calls",
    ]);
    expect(seen.at(-1)?.choices).toEqual([]);
    expect(seen.at(-1)?.usage?.prompt_tokens).toBeGreaterThan(0);
  });

  it("sends no usage chunk unless the request asks for one", async () => {
    const { client } = scripted([textReply("Hi.")]);
    const { chunks: seen } = await chunks(
      await client.chat.completions.create({ model: "m", messages: prompt, stream: true }),
    );
    expect(seen.every((c) => c.usage === undefined || c.usage === null)).toBe(true);
  });

  it("reads the request back into the Messages API's shape, tool messages as tool results", async () => {
    const { model, client } = scripted([textReply("Done.")]);
    await client.chat.completions.create({
      model: "m",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "list" },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "call_1", type: "function", function: { name: "bash", arguments: '{"command":"ls"}' } }],
        },
        { role: "tool", tool_call_id: "call_1", content: "a.txt" },
      ],
      tools: [bash],
    });
    const [recorded] = model.requests;
    expect(recorded.api).toBe("chat-completions");
    expect(recorded.headers.authorization).toBe("Bearer scripted-model-key");
    expect(recorded.body.system).toBe("Be brief.");
    expect(recorded.body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "list" }] },
      { role: "assistant", content: [{ type: "tool_use", id: "call_1", name: "bash", input: { command: "ls" } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "call_1", content: "a.txt" }] },
    ]);
    expect(recorded.body.tools).toEqual([{ name: "bash", input_schema: { type: "object" } }]);
  });

  it("refuses an unanswered tool call in the API's words", async () => {
    const { client } = scripted([textReply("never")]);
    const request = client.chat.completions.create({
      model: "m",
      messages: [
        { role: "user", content: "list" },
        {
          role: "assistant",
          tool_calls: [{ id: "call_9", type: "function", function: { name: "bash", arguments: "{}" } }],
        },
        { role: "user", content: "and?" },
      ],
    });
    await expect(request).rejects.toBeInstanceOf(BadRequestError);
    await expect(request).rejects.toThrow(/did not have response messages: call_9/);
  });

  it("refuses a tool message that answers no call", async () => {
    const { client } = scripted([textReply("never")]);
    const request = client.chat.completions.create({
      model: "m",
      messages: [
        { role: "user", content: "list" },
        { role: "tool", tool_call_id: "call_1", content: "x" },
      ],
    });
    await expect(request).rejects.toThrow(/must be a response to a preceeding message with 'tool_calls'/);
  });

  it("holds a tool-call turn that had reasoning to DeepSeek's rule: the reasoning comes back", async () => {
    const { client } = scripted([
      reply([
        { type: "thinking", thinking: "I should list.", signature: "s" },
        toolUse("bash", { command: "ls" }, "call_r"),
      ]),
      textReply("one"),
      textReply("two"),
    ]);
    const first = await client.chat.completions.create({ model: "m", messages: prompt });
    const message = first.choices[0].message as ChatCompletionAssistantMessageParam & { reasoning_content?: string };
    expect(message.reasoning_content).toBe("I should list.");
    const result: ChatCompletionMessageParam = { role: "tool", tool_call_id: "call_r", content: "a.txt" };
    const withReasoning = { role: "assistant", tool_calls: message.tool_calls, reasoning_content: "I should list." };
    await expect(
      client.chat.completions.create({
        model: "m",
        messages: [...prompt, withReasoning as ChatCompletionMessageParam, result],
      }),
    ).resolves.toBeDefined();
    const without = client.chat.completions.create({
      model: "m",
      messages: [...prompt, { role: "assistant", tool_calls: message.tool_calls }, result],
    });
    await expect(without).rejects.toThrow(
      "The `reasoning_content` in the thinking mode must be passed back to the API.",
    );
  });

  describe("faults", () => {
    it("sends HTTP errors in OpenAI's error body, retried as the SDK retries them", async () => {
      const { model, client } = scripted(
        [{ kind: "http_error", status: 500, retryAfterMs: 1 }, { kind: "http_error", status: 401 }, textReply("x")],
        1,
      );
      const request = client.chat.completions.create({ model: "m", messages: prompt });
      await expect(request).rejects.toBeInstanceOf(AuthenticationError);
      expect(model.requests).toHaveLength(2);
      const plain = scripted([{ kind: "http_error", status: 503, message: "busy" }]);
      await expect(plain.client.chat.completions.create({ model: "m", messages: prompt })).rejects.toThrow(
        InternalServerError,
      );
    });

    it("ends a stream with an error payload as a thrown APIError, after the chunks before it", async () => {
      const { client } = scripted([
        { kind: "sse_error", afterEvents: 4, reply: textReply("A long enough reply to be split into pieces.") },
      ]);
      const { chunks: seen, error } = await chunks(
        await client.chat.completions.create({ model: "m", messages: prompt, stream: true }),
      );
      expect(error).toBeInstanceOf(APIError);
      expect((error as Error).message).toMatch(/Overloaded/);
      expect(seen.length).toBeGreaterThan(0);
    });

    it("cuts a stream mid-way: the SDK throws, with no finish reason seen", async () => {
      const { client } = scripted([
        { kind: "cut", afterEvents: 4, reply: textReply("A long enough reply to be split into pieces.") },
      ]);
      const { chunks: seen, error } = await chunks(
        await client.chat.completions.create({ model: "m", messages: prompt, stream: true }),
      );
      expect(error).toBeDefined();
      expect(seen.some((c) => c.choices.some((choice) => choice.finish_reason))).toBe(false);
    });

    it("ends a stream without its finish reason quietly, so the harness must check", async () => {
      const { client } = scripted([
        { kind: "no_message_stop", reply: reply([toolUse("bash", { command: "touch RAN" })]) },
      ]);
      const { chunks: seen, error } = await chunks(
        await client.chat.completions.create({ model: "m", messages: prompt, stream: true }),
      );
      expect(error).toBeUndefined();
      expect(seen.some((c) => c.choices.some((choice) => choice.finish_reason))).toBe(false);
    });

    it("streams malformed arguments as sent, and a length-cut call with finish_reason length", async () => {
      const { client } = scripted([
        reply([{ type: "tool_use", name: "bash", rawInput: '{"command": "touch PWNED"' }], {
          stopReason: "max_tokens",
        }),
      ]);
      const { chunks: seen } = await chunks(
        await client.chat.completions.create({ model: "m", messages: prompt, stream: true }),
      );
      const args = seen.flatMap((c) => c.choices.flatMap((ch) => ch.delta.tool_calls ?? []));
      expect(args.map((a) => a.function?.arguments ?? "").join("")).toBe('{"command": "touch PWNED"');
      expect(seen.flatMap((c) => c.choices.map((ch) => ch.finish_reason)).filter(Boolean)).toEqual(["length"]);
    });
  });

  it("answers over HTTP too, on the same routes", async () => {
    const model = new ScriptedModel({ script: [textReply("Over the socket.")] });
    const server = await startScriptedServer(model);
    try {
      const client = new OpenAI({ apiKey: "k", baseURL: `${server.url}/v1`, maxRetries: 0 });
      const { chunks: seen } = await chunks(
        await client.chat.completions.create({ model: "m", messages: prompt, stream: true }),
      );
      expect(seen.map((c) => c.choices[0]?.delta.content ?? "").join("")).toBe("Over the socket.");
    } finally {
      await server.close();
    }
  });
});
