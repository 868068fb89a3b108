/**
 * The endpoint guard through the real SDK client: endpoints that misbehave, served over HTTP on
 * 127.0.0.1 (a page where JSON should be, a server that accepts and never answers, a stream that
 * stalls), and the recorded real responses, which must all pass.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Anthropic, { APIError, APIUserAbortError } from "@anthropic-ai/sdk";
import { encodeSse, ScriptedModel, startScriptedServer, textReply } from "@harness/scripted-model";
import { chunkFixtures, jsonFixtures, readChunksAsSse, readJsonFixture, replayFetch } from "@harness/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { EndpointError, endpointGuard } from "../src/endpoint-guard.ts";

const params = { model: "claude-test", max_tokens: 100, messages: [{ role: "user" as const, content: "hi" }] };

const MESSAGE_START = encodeSse({
  event: "message_start",
  data: {
    type: "message_start",
    message: {
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "claude-test",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 3, output_tokens: 1 },
    },
  },
});

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** An HTTP server on 127.0.0.1 answering every request with `handler`; counts the requests. */
async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const server = createServer((req, res) => {
    seen.requests++;
    req.resume(); // read the request body, so the client is not held up sending it
    handler(req, res);
  });
  const seen = { requests: 0 };
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { url, seen };
}

/** The real client, guarded as createClient guards it (retries left at the SDK's default). */
function guardedClient(
  baseURL: string,
  timeoutMs = 2000,
  extra: Partial<ConstructorParameters<typeof Anthropic>[0]> = {},
) {
  return new Anthropic({
    apiKey: "k",
    baseURL,
    timeout: timeoutMs,
    middleware: [endpointGuard({ timeoutMs })],
    ...extra,
  });
}

/** Answer with a status, a content type and a body. */
const answer = (status: number, type: string, body: string) => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(status, { "content-type": type });
  res.end(body);
};

async function failure(call: Promise<unknown>): Promise<Error> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof Error)) throw new Error("the call did not fail");
  return error;
}

/** Consume a stream to its end; the events' types. */
async function drain(stream: AsyncIterable<{ type: string }>): Promise<string[]> {
  const types: string[] = [];
  for await (const event of stream) types.push(event.type);
  return types;
}

describe("endpointGuard: what is not the Messages API", () => {
  const page = "<!doctype html>\n<html><head><title>Sign in to the proxy</title></head><body>…</body></html>";

  it("refuses a 200 HTML page for a whole response, naming the URL, the status, the type and the start", async () => {
    const { url, seen } = await serve(answer(200, "text/html; charset=utf-8", page));
    const error = await failure(guardedClient(url).messages.create(params));
    expect(error).toBeInstanceOf(EndpointError);
    expect(error.message).toBe(
      `${url}/v1/messages answered 200 text/html, not a Messages API response: ` +
        '"<!doctype html> <html><head><title>Sign in to the proxy</title></head><body>…</body></html>"',
    );
    expect(seen.requests).toBe(1); // refused at once: the same endpoint would answer the same
  });

  it("refuses a 200 HTML page for a stream", async () => {
    const { url, seen } = await serve(answer(200, "text/html", page));
    const error = await failure(guardedClient(url).messages.create({ ...params, stream: true }));
    expect(error).toBeInstanceOf(EndpointError);
    expect(error.message).toMatch(
      new RegExp(`^${url}/v1/messages answered 200 text/html, not a Messages API stream: "<!doctype html>`),
    );
    expect(seen.requests).toBe(1);
  });

  it("refuses JSON that does not parse, quoting it instead of the bare parse error", async () => {
    const { url } = await serve(answer(200, "application/json", "<html>oops</html>"));
    const error = await failure(guardedClient(url).messages.create(params));
    expect(error.message).toBe(
      `${url}/v1/messages answered 200 application/json that does not parse as JSON: "<html>oops</html>"`,
    );
  });

  it.each([
    ["an empty object", "{}"],
    ["an OpenAI chat completion", '{"id":"chatcmpl-1","object":"chat.completion","choices":[]}'],
    ["an array", "[]"],
    ["null", "null"],
  ])("refuses JSON that is not a Message: %s", async (_what, body) => {
    const { url } = await serve(answer(200, "application/json", body));
    const error = await failure(guardedClient(url).messages.create(params));
    expect(error).toBeInstanceOf(EndpointError);
    expect(error.message).toBe(
      `${url}/v1/messages answered 200 application/json that is not a Messages API message: ${JSON.stringify(body)}`,
    );
  });

  it("says when a 200 has no body at all", async () => {
    const { url } = await serve((_req, res) => res.writeHead(200).end());
    const error = await failure(guardedClient(url).messages.create(params));
    expect(error.message).toBe(
      `${url}/v1/messages answered 200 with no content type, not a Messages API response: an empty body`,
    );
  });

  it("clips a long body to its start, on one line", async () => {
    const { url } = await serve(answer(200, "text/plain", `${"line\n".repeat(1000)}`));
    const error = await failure(guardedClient(url).messages.create(params));
    expect(error.message).not.toContain("\n");
    expect(error.message).toMatch(/: "line line .*…"$/);
    expect(error.message.length).toBeLessThan(250);
  });

  it("is not retried even when the page mentions a timeout (the SDK retries errors that say so)", async () => {
    const { url, seen } = await serve(answer(200, "text/html", "<h1>504 Gateway Timeout</h1>"));
    const error = await failure(guardedClient(url).messages.create(params));
    expect(error).toBeInstanceOf(EndpointError);
    expect(error.message).toContain("504 Gateway Timeout");
    expect(seen.requests).toBe(1);
  });

  it("refuses an event stream that is not the Messages API's, before the SDK sees an event", async () => {
    const openAi = 'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[]}\n\n';
    const { url } = await serve(answer(200, "text/event-stream", openAi.repeat(3)));
    const stream = await guardedClient(url).messages.create({ ...params, stream: true });
    const error = await failure(drain(stream));
    expect(error).toBeInstanceOf(EndpointError);
    expect(error.message).toMatch(
      new RegExp(
        `^${url}/v1/messages answered an event stream with a first event without a name, not a Messages API stream: "data: `,
      ),
    );
  });

  it("names a first event the Messages API never sends", async () => {
    const { url } = await serve(answer(200, "text/event-stream", "event: chunk\ndata: {}\n\n"));
    const stream = await guardedClient(url).messages.create({ ...params, stream: true });
    const error = await failure(drain(stream));
    expect(error.message).toContain('with a first event named "chunk"');
  });

  it("passes comments, an error event first, and error statuses on to the SDK as they are", async () => {
    const events = `: keep-alive\n\n${encodeSse({ event: "error", data: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } } })}`;
    const { url } = await serve(answer(200, "text/event-stream", events));
    const stream = await guardedClient(url).messages.create({ ...params, stream: true });
    const streamError = await failure(drain(stream));
    expect(streamError).toBeInstanceOf(APIError);
    expect(streamError).not.toBeInstanceOf(EndpointError);
    expect(streamError.message).toContain("Overloaded");

    const status = await serve(
      answer(400, "application/json", '{"type":"error","error":{"type":"invalid_request_error","message":"bad"}}'),
    );
    const statusError = await failure(guardedClient(status.url).messages.create(params));
    expect(statusError).not.toBeInstanceOf(EndpointError);
    expect((statusError as APIError).status).toBe(400);
  });

  it("lets every recorded real response through, whole and streamed", async () => {
    for (const name of jsonFixtures) {
      const body = JSON.stringify(readJsonFixture(name));
      const fetch = async () => new Response(body, { headers: { "content-type": "application/json" } });
      const message = await guardedClient("http://recorded.test", 2000, { fetch }).messages.create(params);
      expect(message, name).toEqual(JSON.parse(body));
    }
    for (const name of chunkFixtures) {
      const client = guardedClient("http://recorded.test", 2000, { fetch: replayFetch(name) });
      const types = await drain(await client.messages.create({ ...params, stream: true }));
      const recorded = readChunksAsSse(name)
        .match(/^event: (\w+)$/gm)
        ?.map((line) => line.slice(7));
      expect(types, name).toEqual(recorded?.filter((t) => t !== "ping"));
    }
  });

  it("lets the scripted model through, over HTTP, whole and streamed", async () => {
    const model = new ScriptedModel({ script: [textReply("whole"), textReply("streamed")] });
    const server = await startScriptedServer(model);
    closers.push(() => server.close());
    const client = guardedClient(server.url);
    expect((await client.messages.create(params)).content).toEqual([{ type: "text", text: "whole" }]);
    expect(await drain(await client.messages.create({ ...params, stream: true }))).toContain("message_stop");
  });

  it("refuses a whole response larger than its limit", async () => {
    const { url } = await serve(answer(200, "application/json", `{"pad":"${"x".repeat(5000)}"}`));
    const client = new Anthropic({
      apiKey: "k",
      baseURL: url,
      middleware: [endpointGuard({ timeoutMs: 2000, maxBodyBytes: 1000 })],
    });
    const error = await failure(client.messages.create(params));
    expect(error.message).toBe(`${url}/v1/messages answered more than 1000 bytes`);
  });
});

describe("endpointGuard: waits", () => {
  it("gives up on a server that accepts and never answers, after the timeout, once", async () => {
    const { url, seen } = await serve(() => {}); // holds every request open
    const error = await failure(guardedClient(url, 300).messages.create(params));
    expect(error).toBeInstanceOf(EndpointError);
    expect((error as EndpointError).problem).toBe("no_response");
    expect(error.message).toBe(`no response from ${url}/v1/messages within 0.3 s`);
    expect(seen.requests).toBe(1); // a timeout is not retried: three would be three timeouts
  });

  it("gives up on a stream whose headers never come", async () => {
    const { url } = await serve(() => {});
    const error = await failure(guardedClient(url, 300).messages.create({ ...params, stream: true }));
    expect(error.message).toBe(`no response from ${url}/v1/messages within 0.3 s`);
  });

  it("gives up on a whole response whose body stops half way", async () => {
    const { url, seen } = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"type":"message","content":[');
    });
    const error = await failure(guardedClient(url, 1000).messages.create(params));
    expect((error as EndpointError).problem).toBe("slow_response");
    expect(error.message).toBe(`the response from ${url}/v1/messages did not finish within 1 s`);
    expect(seen.requests).toBe(1);
  });

  it("gives up on an error page whose body never ends, instead of hanging in the SDK", async () => {
    const { url } = await serve((_req, res) => {
      res.writeHead(400, { "content-type": "text/html" });
      res.write("<html>");
    });
    const error = await failure(guardedClient(url, 1000).messages.create(params));
    expect(error.message).toBe(`the response from ${url}/v1/messages did not finish within 1 s`);
  });

  it("gives up on a stream silent for longer than the timeout, after passing on what came", async () => {
    const { url } = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(MESSAGE_START);
    });
    const stream = await guardedClient(url, 1000).messages.create({ ...params, stream: true });
    const types: string[] = [];
    const error = await failure(
      (async () => {
        for await (const event of stream) types.push(event.type);
      })(),
    );
    expect(types).toEqual(["message_start"]);
    expect((error as EndpointError).problem).toBe("silent_stream");
    expect(error.message).toBe(`the stream from ${url}/v1/messages was silent for 1 s`);
  });

  it("does not take a slow reader for a silent server", async () => {
    const model = new ScriptedModel({ script: [textReply("a reply in several pieces, read slowly")] });
    const server = await startScriptedServer(model);
    closers.push(() => server.close());
    const stream = await guardedClient(server.url, 500).messages.create({ ...params, stream: true });
    const types: string[] = [];
    for await (const event of stream) {
      types.push(event.type);
      if (types.length === 2) await new Promise((resolve) => setTimeout(resolve, 1500)); // 3x the timeout
    }
    expect(types.at(-1)).toBe("message_stop");
  });

  it("keeps an abort by the caller an abort, before the headers and mid-stream", async () => {
    const silent = await serve(() => {});
    const before = new AbortController();
    setTimeout(() => before.abort(), 50);
    const call = guardedClient(silent.url, 60_000).messages.create(params, { signal: before.signal });
    expect(await failure(call)).toBeInstanceOf(APIUserAbortError);

    const stalled = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(MESSAGE_START);
    });
    const during = new AbortController();
    const stream = await guardedClient(stalled.url, 60_000).messages.create(
      { ...params, stream: true },
      { signal: during.signal },
    );
    setTimeout(() => during.abort(), 50);
    // the SDK ends an aborted stream quietly: no EndpointError (and no wait for the guard's minute)
    expect(await drain(stream)).toEqual(["message_start"]);
  });
});
