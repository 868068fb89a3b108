import { type AddressInfo, createServer } from "node:net";
import Anthropic from "@anthropic-ai/sdk";
import { ScriptedModel, type ScriptStep } from "@harness/scripted-model";
import { describe, expect, it } from "vitest";
import { describeError } from "../src/describe-error.ts";
import { EndpointError } from "../src/endpoint-guard.ts";

const params = { model: "claude-test", max_tokens: 100, messages: [{ role: "user" as const, content: "hi" }] };

/** The error the real SDK throws for this scripted step, with no retries. */
async function sdkError(step: ScriptStep, stream = false): Promise<unknown> {
  const client = new ScriptedModel({ script: [step] }).client({ maxRetries: 0 });
  if (stream)
    return client.messages
      .stream(params)
      .finalMessage()
      .catch((e: unknown) => e);
  return client.messages.create(params).catch((e: unknown) => e);
}

/** The error the real SDK throws when its fetch answers or fails like this. */
async function errorFrom(fetch: () => Promise<Response>): Promise<unknown> {
  const client = new Anthropic({ apiKey: "k", baseURL: "http://127.0.0.1:9", fetch, maxRetries: 0 });
  return client.messages.create(params).catch((e: unknown) => e);
}

describe("describeError", () => {
  it("names where the rejected key came from on a 401", async () => {
    const error = await sdkError({ kind: "http_error", status: 401 });
    const line = describeError(error, { keySource: "ANTHROPIC_API_KEY from /repo/.env" });
    expect(line).toBe(
      "the API answered 401 authentication_error: invalid x-api-key; the key was rejected (ANTHROPIC_API_KEY from /repo/.env)",
    );
  });

  it("says no key was sent on a 401 when it does not know of one", async () => {
    expect(describeError(await sdkError({ kind: "http_error", status: 401 }))).toMatch(/\(no key was sent\)$/);
  });

  it("names the endpoint it could not reach, and why", async () => {
    // a port that was free a moment ago: nothing listens there now
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    const baseURL = `http://127.0.0.1:${port}`;
    const client = new Anthropic({ apiKey: "k", baseURL, maxRetries: 0 });
    const error = await client.messages.create(params).catch((e: unknown) => e);
    expect(describeError(error, { baseURL })).toBe(
      `could not reach ${baseURL}: connection refused: nothing listens on that port (ECONNREFUSED) (after retries)`,
    );
  });

  it('names the port fetch refuses ("bad port"), not the bare "fetch failed"', async () => {
    const baseURL = "http://127.0.0.1:9";
    const client = new Anthropic({ apiKey: "k", baseURL, maxRetries: 0 });
    const error = await client.messages.create(params).catch((e: unknown) => e);
    expect((error as Error).message).not.toContain("bad port"); // the SDK's own message says nothing
    expect(describeError(error, { baseURL })).toBe(
      'could not reach http://127.0.0.1:9: fetch refuses port 9 ("bad port" in the fetch standard) (after retries)',
    );
  });

  it.each([
    ["ENOTFOUND", "getaddrinfo ENOTFOUND api.example.invalid", "no such host (ENOTFOUND)"],
    [
      "DEPTH_ZERO_SELF_SIGNED_CERT",
      "self-signed certificate",
      "its TLS certificate is self-signed (DEPTH_ZERO_SELF_SIGNED_CERT)",
    ],
    ["EWHATEVER", "something new", "something new (EWHATEVER)"],
  ])("walks the causes of fetch failed down to the system error %s", async (code, message, reason) => {
    const system = Object.assign(new Error(message), { code });
    const error = await errorFrom(() => Promise.reject(new TypeError("fetch failed", { cause: system })));
    expect(describeError(error, { baseURL: "https://api.example.invalid" })).toBe(
      `could not reach https://api.example.invalid: ${reason} (after retries)`,
    );
  });

  it("finds the code of an AggregateError (every address of a host refused)", async () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED ::1:8080"), { code: "ECONNREFUSED" });
    const all = new AggregateError([refused]);
    const error = await errorFrom(() => Promise.reject(new TypeError("fetch failed", { cause: all })));
    expect(describeError(error, { baseURL: "http://localhost:8080" })).toMatch(
      /: connection refused: .*\(ECONNREFUSED\)/,
    );
  });

  it("says a base URL needs a scheme", async () => {
    const error = await errorFrom(() =>
      Promise.reject(new TypeError("fetch failed", { cause: new Error("unknown scheme") })),
    );
    expect(describeError(error, { baseURL: "localhost:8080" })).toBe(
      "could not reach localhost:8080: unknown scheme: a base URL begins with http:// or https:// (after retries)",
    );
  });

  it("gives the endpoint guard's line as it is", () => {
    const error = new EndpointError("no_response", "no response from http://127.0.0.1:1/v1/messages within 2 s");
    expect(describeError(error, { baseURL: "http://elsewhere" })).toBe(error.message);
  });

  it("names the default endpoint when no base URL was set", async () => {
    const error = await errorFrom(() => Promise.reject(new TypeError("fetch failed")));
    expect(describeError(error)).toMatch(/^could not reach https:\/\/api\.anthropic\.com/);
  });

  it("says a request timed out, and where to", async () => {
    const client = new ScriptedModel({ script: [{ kind: "hang" }] }).client({ maxRetries: 0, timeout: 50 });
    const error = await client.messages.create(params).catch((e: unknown) => e);
    expect(describeError(error, { baseURL: "http://localhost:11434" })).toBe(
      "no response from http://localhost:11434 in time (after retries)",
    );
  });

  it.each([
    [429, /^the API answered 429 rate_limit_error: .* \(after retries\)$/],
    [529, /^the API answered 529 overloaded_error: Overloaded \(after retries\)$/],
    [500, /^the API answered 500 api_error: Internal server error \(after retries\)$/],
  ])("says a %i came after the retries", async (status, line) => {
    expect(describeError(await sdkError({ kind: "http_error", status }))).toMatch(line);
  });

  it("points to --model when the model is not found", async () => {
    const error = await sdkError({ kind: "http_error", status: 404, message: "model: claude-nope" });
    expect(describeError(error)).toBe(
      "the API answered 404 not_found_error: model: claude-nope; check --model or MODEL_ID",
    );
  });

  it("describes an error event in a stream", async () => {
    const error = await sdkError({ kind: "sse_error", afterEvents: 2 }, true);
    expect(describeError(error)).toBe("the API answered stream error overloaded_error: Overloaded");
  });

  it("says what a proxy's error page is, on one line: the endpoint, the status, the content type, its start", async () => {
    const page = "<html>\n<head><title>502 Bad Gateway</title></head>\n<body>bad gateway</body>\n</html>\n";
    const error = await errorFrom(
      async () => new Response(page, { status: 502, headers: { "content-type": "text/html; charset=utf-8" } }),
    );
    expect(describeError(error, { baseURL: "http://proxy.test" })).toBe(
      "http://proxy.test answered 502 text/html, not a Messages API error: " +
        '"<html> <head><title>502 Bad Gateway</title></head> <body>bad gateway</body> </html>" (after retries)',
    );
  });

  it("points to ANTHROPIC_BASE_URL when a path is not found", async () => {
    const error = await errorFrom(async () => new Response("404 page not found", { status: 404 }));
    expect(describeError(error, { baseURL: "http://localhost:11434/v1" })).toBe(
      'http://localhost:11434/v1 answered 404 text/plain, not a Messages API error: "404 page not found"; ' +
        "check ANTHROPIC_BASE_URL (the client adds /v1/messages to it)",
    );
  });

  it("clips a long error body", async () => {
    const error = await errorFrom(async () => new Response("x".repeat(5000), { status: 403 }));
    const line = describeError(error);
    expect(line).toMatch(/^https:\/\/api\.anthropic\.com answered 403 text\/plain, not a Messages API error: "x+"$/);
    expect(line.length).toBeLessThan(200);
  });

  it("keeps a multi-line API message on one line", async () => {
    const error = await sdkError({ kind: "http_error", status: 400, message: "first problem\nsecond problem" });
    expect(describeError(error)).toBe("the API answered 400 invalid_request_error: first problem second problem");
  });

  it("gives the first line of any other error", () => {
    expect(describeError(new Error("something broke\n    at a stack frame"))).toBe("something broke");
    expect(describeError("a thrown string\nwith two lines")).toBe("a thrown string");
    expect(describeError(42)).toBe("42");
  });
});
