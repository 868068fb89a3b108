import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { describeOpenAiError } from "../src/openai/describe-openai-error.ts";

/** The error a chat call to `baseURL` ends with. */
async function errorOf(baseURL: string): Promise<unknown> {
  const client = new OpenAI({ apiKey: "sk-secret-value", baseURL, maxRetries: 0 });
  return client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "x" }] }).catch((e) => e);
}

describe("describeOpenAiError", () => {
  it("says the key was rejected and where it came from, never its value", async () => {
    const server = createServer((_req, res) => {
      res.writeHead(401, { "content-type": "application/json" });
      res.end(
        JSON.stringify({ error: { message: "Incorrect API key provided: sk-se***", type: "invalid_request_error" } }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    try {
      const line = describeOpenAiError(await errorOf(url), {
        baseURL: url,
        keySource: "OPENAI_API_KEY from the shell",
      });
      expect(line).toBe(
        `${url} answered 401 invalid_request_error: Incorrect API key provided: sk-se***; the key was rejected (OPENAI_API_KEY from the shell)`,
      );
      expect(line).not.toContain("sk-secret-value");
    } finally {
      server.close();
    }
  });

  it("names why nothing answered: a refused connection, with its code", async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    await new Promise((resolve) => server.close(resolve)); // nothing listens there now
    const url = `http://127.0.0.1:${port}/v1`;
    expect(describeOpenAiError(await errorOf(url), { baseURL: url })).toMatch(
      new RegExp(`^could not reach ${url}: connection refused: .*\\(ECONNREFUSED\\) \\(after retries\\)$`),
    );
  });

  it("says a body it cannot read is one, where the SDK says there was none", async () => {
    const server = createServer((_req, res) => {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ detail: "Not Found" }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      expect(describeOpenAiError(await errorOf(url), { baseURL: url })).toBe(
        `${url} answered 404 error: no error the client could read in the body; check --model or MODEL_ID, and OPENAI_BASE_URL (the client adds /chat/completions or /responses to it)`,
      );
    } finally {
      server.close();
    }
  });

  it("leaves other errors to shared's describeError", () => {
    expect(describeOpenAiError(new Error("boom"), { baseURL: "x" })).toBeUndefined();
  });
});
