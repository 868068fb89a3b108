import OpenAI, { APIError, BadRequestError } from "openai";
import type {
  ResponseInputItem,
  ResponseReasoningItem,
  ResponseStreamEvent,
} from "openai/resources/responses/responses";
import { describe, expect, it } from "vitest";
import { reply, type ScriptStep, text, textReply, toolUse } from "../src/script.ts";
import { ScriptedModel } from "../src/scripted-model.ts";

function scripted(script: ScriptStep[]) {
  const model = new ScriptedModel({ script });
  const client = new OpenAI({
    apiKey: "scripted-model-key",
    baseURL: "http://scripted-model.invalid/v1",
    fetch: model.fetch,
    maxRetries: 0,
  });
  return { model, client };
}

async function events(
  stream: AsyncIterable<ResponseStreamEvent>,
): Promise<{ events: ResponseStreamEvent[]; error?: unknown }> {
  const seen: ResponseStreamEvent[] = [];
  try {
    for await (const event of stream) seen.push(event);
    return { events: seen };
  } catch (error) {
    return { events: seen, error };
  }
}

const thinkThenCall = reply([
  { type: "thinking", thinking: "The user wants a listing.", signature: "sig-1" },
  text("Listing."),
  toolUse("bash", { command: "ls" }, "call_a"),
  toolUse("bash", { command: "pwd" }, "call_b"),
]);

describe("ScriptedModel on /v1/responses, through the openai SDK", () => {
  it("reads a user message's input_text parts as separate blocks, as the Messages API keeps them", async () => {
    const { model, client } = scripted([textReply("ok")]);
    await client.responses.create({
      model: "gpt-test",
      input: [
        {
          role: "user",
          content: [
            { type: "input_text", text: "a summary" },
            { type: "input_text", text: "the prompt" },
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

  it("answers with a response: reasoning, message and function_call items, in order, with usage", async () => {
    const { client } = scripted([thinkThenCall]);
    const response = await client.responses.create({ model: "m", input: "list", store: false });
    expect(response.status).toBe("completed");
    expect(response.output.map((item) => item.type)).toEqual([
      "reasoning",
      "message",
      "function_call",
      "function_call",
    ]);
    expect(response.output[0]).toMatchObject({
      id: "rs_scripted_0001_0",
      summary: [{ type: "summary_text", text: "The user wants a listing." }],
      encrypted_content: expect.stringMatching(/^enc_/),
    });
    expect(response.output_text).toBe("Listing.");
    expect(response.output[2]).toMatchObject({ call_id: "call_a", name: "bash", arguments: '{"command":"ls"}' });
    expect(response.usage?.output_tokens).toBeGreaterThan(0);
  });

  it("ends a cut or refused reply incomplete, with its reason", async () => {
    const { client } = scripted([
      textReply("cut", { stopReason: "max_tokens" }),
      textReply("no", { stopReason: "refusal" }),
      textReply("?", { stopReason: "novel_reason" }),
    ]);
    const endings = [];
    for (let i = 0; i < 3; i++) {
      const response = await client.responses.create({ model: "m", input: "x" });
      endings.push([response.status, response.incomplete_details?.reason]);
    }
    expect(endings).toEqual([
      ["incomplete", "max_output_tokens"],
      ["incomplete", "content_filter"],
      ["incomplete", "novel_reason"],
    ]);
  });

  it("streams the events the API sends, the completed response last and equal to the JSON one", async () => {
    const streamed = scripted([thinkThenCall]);
    const { events: seen, error } = await events(
      await streamed.client.responses.create({ model: "m", input: "list", stream: true }),
    );
    expect(error).toBeUndefined();
    const types = seen.map((e) => e.type);
    expect(types.slice(0, 3)).toEqual(["response.created", "response.in_progress", "response.output_item.added"]);
    expect(types).toContain("response.reasoning_summary_text.delta");
    expect(types).toContain("response.output_text.delta");
    expect(types.filter((t) => t === "response.function_call_arguments.delta").length).toBeGreaterThan(0);
    expect(types.at(-1)).toBe("response.completed");
    expect(seen.map((e) => e.sequence_number)).toEqual(seen.map((_, i) => i));
    const whole = await scripted([thinkThenCall]).client.responses.create({ model: "m", input: "list" });
    const completed = seen.at(-1) as { response: { output: unknown[] } };
    expect(completed.response.output).toEqual(whole.output);
  });

  it("reads the input back into the Messages API's shape", async () => {
    const { model, client } = scripted([textReply("Done.")]);
    await client.responses.create({
      model: "m",
      instructions: "Be brief.",
      input: [
        { role: "user", content: "list" },
        { type: "function_call", call_id: "call_1", name: "bash", arguments: '{"command":"ls"}' },
        { type: "function_call_output", call_id: "call_1", output: "a.txt" },
      ],
      tools: [{ type: "function", name: "bash", parameters: { type: "object" }, strict: false }],
      max_output_tokens: 100,
    });
    const [recorded] = model.requests;
    expect(recorded.api).toBe("responses");
    expect(recorded.body).toMatchObject({ system: "Be brief.", max_tokens: 100 });
    expect(recorded.body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "list" }] },
      { role: "assistant", content: [{ type: "tool_use", id: "call_1", name: "bash", input: { command: "ls" } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "call_1", content: "a.txt" }] },
    ]);
  });

  it("refuses a function call without its output, and an output without its call, in the API's words", async () => {
    const { client } = scripted([]);
    const call: ResponseInputItem = { type: "function_call", call_id: "call_1", name: "bash", arguments: "{}" };
    await expect(
      client.responses.create({ model: "m", input: [{ role: "user", content: "x" }, call] }),
    ).rejects.toThrow("No tool output found for function call call_1.");
    const orphan: ResponseInputItem = { type: "function_call_output", call_id: "call_2", output: "x" };
    await expect(client.responses.create({ model: "m", input: [orphan] })).rejects.toThrow(BadRequestError);
  });

  it("takes its reasoning item back only unchanged, when the request is stateless", async () => {
    const { client } = scripted([thinkThenCall, textReply("ok")]);
    const first = await client.responses.create({ model: "m", input: "list", store: false });
    const outputs: ResponseInputItem[] = [
      { type: "function_call_output", call_id: "call_a", output: "a.txt" },
      { type: "function_call_output", call_id: "call_b", output: "/tmp" },
    ];
    const calls = first.output.filter((item) => item.type === "function_call") as ResponseInputItem[];
    const reasoning = first.output[0] as ResponseReasoningItem;
    const send = (item: ResponseReasoningItem) =>
      client.responses.create({
        model: "m",
        store: false,
        input: [{ role: "user", content: "list" }, item, ...calls, ...outputs],
      });
    await expect(send({ ...reasoning, encrypted_content: "enc_forged" })).rejects.toThrow(/could not be verified/);
    await expect(send({ ...reasoning, encrypted_content: null })).rejects.toThrow(
      /Items are not persisted when `store` is set to false/,
    );
    await expect(send(reasoning)).resolves.toMatchObject({ output_text: "ok" });
  });

  describe("faults", () => {
    it("ends a stream with an error event as a thrown APIError", async () => {
      const { client } = scripted([
        { kind: "sse_error", afterEvents: 4, reply: textReply("A reply long enough to be split.") },
      ]);
      const { events: seen, error } = await events(
        await client.responses.create({ model: "m", input: "x", stream: true }),
      );
      expect(error).toBeInstanceOf(APIError);
      expect(seen.some((e) => e.type === "response.output_text.delta")).toBe(true);
    });

    it("cuts a stream before the response completes", async () => {
      const { client } = scripted([
        { kind: "cut", afterEvents: 3, reply: textReply("A reply long enough to be split.") },
      ]);
      const { events: seen, error } = await events(
        await client.responses.create({ model: "m", input: "x", stream: true }),
      );
      expect(error).toBeDefined();
      expect(seen.some((e) => e.type === "response.completed")).toBe(false);
    });

    it("ends a stream without response.completed quietly, so the harness must check", async () => {
      const { client } = scripted([
        { kind: "no_message_stop", reply: reply([toolUse("bash", { command: "touch RAN" })]) },
      ]);
      const { events: seen, error } = await events(
        await client.responses.create({ model: "m", input: "x", stream: true }),
      );
      expect(error).toBeUndefined();
      expect(seen.map((e) => e.type)).toContain("response.output_item.done");
      expect(seen.map((e) => e.type)).not.toContain("response.completed");
    });
  });
});
