import Anthropic, { APIError } from "@anthropic-ai/sdk";
import type { MessageCreateParamsNonStreaming } from "@anthropic-ai/sdk/resources/messages";
import { afterEach, describe, expect, it } from "vitest";
import { reply, text, textReply, toolUse } from "../src/script.ts";
import { ScriptedModel } from "../src/scripted-model.ts";
import { type ScriptedServer, startScriptedServer } from "../src/start-scripted-server.ts";

const params: MessageCreateParamsNonStreaming = {
  model: "claude-test",
  max_tokens: 100,
  messages: [{ role: "user", content: "hi" }],
};

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(model: ScriptedModel): Promise<Anthropic> {
  server = await startScriptedServer(model);
  return new Anthropic({ apiKey: "test-key", baseURL: server.url, maxRetries: 0 });
}

describe("startScriptedServer", () => {
  it("listens on 127.0.0.1 only", async () => {
    server = await startScriptedServer(new ScriptedModel());
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it("answers a JSON request over HTTP and records it", async () => {
    const model = new ScriptedModel({ script: [reply([text("Hi."), toolUse("bash", { command: "ls" })])] });
    const client = await serve(model);
    const message = await client.messages.create(params);
    expect(message.content).toEqual([
      { type: "text", text: "Hi." },
      { type: "tool_use", id: "toolu_scripted_0001_1", name: "bash", input: { command: "ls" } },
    ]);
    expect(model.requests).toHaveLength(1);
    expect(model.requests[0].path).toBe("/v1/messages");
    expect(model.requests[0].headers.authorization).toBe("Bearer test-key");
    expect(model.requests[0].body.messages).toEqual(params.messages);
  });

  it("streams a reply over HTTP", async () => {
    const client = await serve(new ScriptedModel({ script: [textReply("A streamed answer, in several pieces.")] }));
    const message = await client.messages.stream(params).finalMessage();
    expect(message.content).toEqual([{ type: "text", text: "A streamed answer, in several pieces." }]);
  });

  it("sends HTTP errors with their status and retry headers", async () => {
    const model = new ScriptedModel({
      script: [{ kind: "http_error", status: 429, retryAfterMs: 1 }, textReply("ok")],
    });
    server = await startScriptedServer(model);
    const client = new Anthropic({ apiKey: "k", baseURL: server.url, maxRetries: 1 });
    expect((await client.messages.create(params)).content).toEqual([{ type: "text", text: "ok" }]);
    expect(model.requests).toHaveLength(2);
  });

  it("drops the connection mid-stream on a cut, and the SDK throws", async () => {
    const client = await serve(new ScriptedModel({ script: [{ kind: "cut", afterEvents: 4 }] }));
    const stream = await client.messages.create({ ...params, stream: true });
    const types: string[] = [];
    const consume = async () => {
      for await (const event of stream) types.push(event.type);
    };
    await expect(consume()).rejects.toThrow();
    expect(types[0]).toBe("message_start");
    expect(types).not.toContain("message_stop");
  });

  it("serves an error event mid-stream", async () => {
    const client = await serve(new ScriptedModel({ script: [{ kind: "sse_error", afterEvents: 3 }] }));
    await expect(client.messages.stream(params).finalMessage()).rejects.toBeInstanceOf(APIError);
  });

  it("answers an unknown route with a 404", async () => {
    server = await startScriptedServer(new ScriptedModel());
    const response = await fetch(`${server.url}/v1/models`);
    expect(response.status).toBe(404);
  });

  it("closes with a request still hanging", async () => {
    const model = new ScriptedModel({ script: [{ kind: "hang" }] });
    const client = await serve(model);
    const pending = client.messages.create(params).catch((e: unknown) => e);
    while (model.requests.length === 0) await new Promise((r) => setTimeout(r, 10));
    await server!.close();
    server = undefined;
    expect(await pending).toBeInstanceOf(APIError);
  });
});
