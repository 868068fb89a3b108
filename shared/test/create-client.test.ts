import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createClient, DEFAULT_MODEL } from "../src/create-client.ts";
import { textReply } from "../src/scripted-model/script.ts";

let dir: string;
/** A .env file in a temporary directory: the repository's own .env never counts in these tests. */
let envFile: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "create-client-"));
  envFile = join(dir, ".env");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const params = { model: "m", max_tokens: 100, messages: [{ role: "user" as const, content: "hi" }] };

describe("createClient", () => {
  it("uses the scripted model when no key is set, and says why", async () => {
    const choice = createClient({ env: {}, envFile });
    expect(choice.kind).toBe("scripted");
    expect(choice.keySource).toBeUndefined();
    expect(choice.notice).toMatch(/offline scripted model .*no ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN is set/);
    expect(choice.notice).not.toContain("\n");
    // the demo brain answers, in process
    const message = await choice.client.messages.create(params);
    expect(message.content[0]).toMatchObject({ type: "text", text: expect.stringMatching(/offline scripted model/) });
  });

  it("uses the scripted model with --offline even when a key is set", () => {
    const choice = createClient({ offline: true, env: { ANTHROPIC_API_KEY: "sk-test" }, envFile });
    expect(choice.kind).toBe("scripted");
    expect(choice.notice).toMatch(/--offline was given/);
  });

  it("uses the API with a key from the shell, and names where the key came from", () => {
    const choice = createClient({ env: { ANTHROPIC_API_KEY: "sk-shell" }, envFile });
    expect(choice.kind).toBe("api");
    expect(choice.keySource).toBe("ANTHROPIC_API_KEY from the shell");
    expect(choice.notice).toBeUndefined();
    expect(choice.client).toBeInstanceOf(Anthropic);
    expect(choice.client.apiKey).toBe("sk-shell");
  });

  it("uses the API with a key from the .env file, and names the file", () => {
    writeFileSync(envFile, "ANTHROPIC_API_KEY=sk-file\n");
    const choice = createClient({ env: {}, envFile });
    expect(choice.kind).toBe("api");
    expect(choice.keySource).toBe(`ANTHROPIC_API_KEY from ${envFile}`);
    expect(choice.client.apiKey).toBe("sk-file");
  });

  it("prefers the shell's key over the .env file's", () => {
    writeFileSync(envFile, "ANTHROPIC_API_KEY=sk-file\n");
    const choice = createClient({ env: { ANTHROPIC_API_KEY: "sk-shell" }, envFile });
    expect(choice.client.apiKey).toBe("sk-shell");
    expect(choice.keySource).toBe("ANTHROPIC_API_KEY from the shell");
  });

  it("uses an auth token when there is no key", () => {
    const choice = createClient({ env: { ANTHROPIC_AUTH_TOKEN: "tok" }, envFile });
    expect(choice.kind).toBe("api");
    expect(choice.keySource).toBe("ANTHROPIC_AUTH_TOKEN from the shell");
    expect(choice.client.authToken).toBe("tok");
  });

  it("sends requests to ANTHROPIC_BASE_URL when set", () => {
    writeFileSync(envFile, "ANTHROPIC_BASE_URL=http://127.0.0.1:9/anthropic\n");
    const choice = createClient({ env: { ANTHROPIC_API_KEY: "sk" }, envFile });
    expect(choice.baseURL).toBe("http://127.0.0.1:9/anthropic");
    expect(choice.client.baseURL).toBe("http://127.0.0.1:9/anthropic");
  });

  it("reads the model from MODEL_ID, the option winning, else the default", () => {
    writeFileSync(envFile, "MODEL_ID=model-from-file\n");
    expect(createClient({ env: {}, envFile: join(dir, "none") }).model).toBe(DEFAULT_MODEL);
    expect(createClient({ env: {}, envFile }).model).toBe("model-from-file");
    expect(createClient({ env: { MODEL_ID: "model-from-shell" }, envFile }).model).toBe("model-from-shell");
    expect(createClient({ env: { MODEL_ID: "model-from-shell" }, envFile, model: "model-option" }).model).toBe(
      "model-option",
    );
  });

  it("gives the scripted model the brain it is asked to use", async () => {
    const choice = createClient({ env: {}, envFile, brain: () => textReply("from my brain") });
    const message = await choice.client.messages.create(params);
    expect(message.content).toEqual([{ type: "text", text: "from my brain" }]);
  });
});

describe("DEFAULT_MODEL", () => {
  const repo = join(import.meta.dirname, "..", "..");

  it("is a model id the pinned SDK's own Model type lists", () => {
    const typings = readFileSync(
      join(import.meta.dirname, "..", "node_modules", "@anthropic-ai", "sdk", "resources", "messages", "messages.d.ts"),
      "utf8",
    );
    const declared = /export type Model = ([^;]+);/.exec(typings)?.[1] ?? "";
    const ids = [...declared.matchAll(/'([^']+)'/g)].map((m) => m[1]);
    expect(ids.length).toBeGreaterThan(5);
    expect(ids).toContain(DEFAULT_MODEL);
  });

  it("is the one .env.example shows, and the only Claude model id it names", () => {
    const example = readFileSync(join(repo, ".env.example"), "utf8");
    expect(example.match(/claude-[\w.-]+/g)).toEqual([DEFAULT_MODEL]);
  });
});
