import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { EndpointError } from "@harness/cli";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { openAiChatAdapter } from "../src/openai/openai-chat-adapter.ts";
import { CHAT_COMPLETIONS_API, guardedFetch, RESPONSES_API } from "../src/openai/openai-endpoint-guard.ts";
import { openAiResponsesAdapter } from "../src/openai/openai-responses-adapter.ts";

const closers: Array<() => void> = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

/** A server on 127.0.0.1 that answers every request with `handler`, counting them. */
async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  let requests = 0;
  const server = createServer((req, res) => {
    requests++;
    req.resume();
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(() => {
    server.closeAllConnections();
    server.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, requests: () => requests };
}

function client(url: string, api = CHAT_COMPLETIONS_API, timeoutMs = 2000) {
  return new OpenAI({
    apiKey: "k",
    baseURL: url,
    maxRetries: 2,
    timeout: timeoutMs + 1000,
    fetch: guardedFetch(api, timeoutMs),
  });
}
const request = { model: "m", max_tokens: 100, messages: [{ role: "user" as const, content: "hi" }] };
const signal = () => new AbortController().signal;

describe("guardedFetch around the openai SDK", () => {
  it("refuses an HTML page with status 200 as not the API, once, without the SDK's retries", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<!doctype html><title>Login</title>");
    });
    const adapter = openAiChatAdapter(client(server.url));
    const call = adapter.streamTurn(request, signal());
    await expect(call).rejects.toBeInstanceOf(EndpointError);
    await expect(call).rejects.toThrow(/chat\/completions answered 200 text\/html, not a Chat Completions API stream/);
    expect(server.requests()).toBe(1);
  });

  it("ends the wait for a server that never answers, after the timeout and not three times it", async () => {
    const server = await serve(() => {}); // holds every request open
    const adapter = openAiChatAdapter(client(server.url, CHAT_COMPLETIONS_API, 150));
    const started = Date.now();
    const call = adapter.streamTurn(request, signal());
    await expect(call).rejects.toThrow(
      /no response from http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions within 0\.15 s/,
    );
    await expect(call).rejects.toBeInstanceOf(EndpointError);
    expect(server.requests()).toBe(1);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("ends a stream that falls silent after its text began", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      const chunk = {
        object: "chat.completion.chunk",
        choices: [{ index: 0, delta: { content: "Hel" }, finish_reason: null }],
      };
      res.write(`data: ${JSON.stringify(chunk)}\n\n`); // then nothing
    });
    // long enough that a busy machine still sees the headers in time; the silence comes after them
    const adapter = openAiChatAdapter(client(server.url, CHAT_COMPLETIONS_API, 1000));
    await expect(adapter.streamTurn(request, signal())).rejects.toThrow(/was silent for 1 s/);
    expect(server.requests()).toBe(1);
  });

  it("refuses a stream whose first event is another API's, before the reader sees it", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end('event: message_start\ndata: {"type":"message_start"}\n\n');
    });
    const adapter = openAiResponsesAdapter(client(server.url, RESPONSES_API));
    const call = adapter.streamTurn(request, signal());
    await expect(call).rejects.toThrow(
      /answered an event stream with a first event named "message_start", not a Responses API stream/,
    );
  });

  it("refuses a whole response of another API on the API's own path", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ type: "message", content: [] }));
    });
    const call = client(server.url).chat.completions.create({ model: "m", messages: [{ role: "user", content: "x" }] });
    await expect(call).rejects.toThrow(/that is not a Chat Completions API completion/);
  });

  it("passes the SDK's own HTTP errors through, retried as it retries them", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(503, { "content-type": "application/json", "retry-after-ms": "1" });
      res.end(JSON.stringify({ error: { message: "busy", type: "server_error" } }));
    });
    const call = openAiChatAdapter(client(server.url)).streamTurn(request, signal());
    await expect(call).rejects.toThrow(/503 busy/);
    expect(server.requests()).toBe(3);
  });
});
