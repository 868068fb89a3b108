import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import { type Brain, demoBrain, ScriptedModel, startScriptedServer, textReply } from "@harness/scripted-model";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createClient, DEFAULT_MODEL, DEFAULT_MODEL_TIMEOUT_SECONDS } from "../src/create-client.ts";
import { EndpointError } from "../src/endpoint-guard.ts";

/** The scripted model with `brain` (default: the demo brain), as a chapter's main.ts gives it. */
const scriptedWith =
  (brain: Brain = demoBrain) =>
  () =>
    new ScriptedModel({ brain });

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
    const choice = createClient({ env: {}, envFile, scripted: scriptedWith() });
    expect(choice.kind).toBe("scripted");
    expect(choice.keySource).toBeUndefined();
    expect(choice.notice).toMatch(/offline scripted model .*no ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN is set/);
    expect(choice.notice).not.toContain("\n");
    // the demo brain answers, in process
    const message = await choice.client.messages.create(params);
    expect(message.content[0]).toMatchObject({ type: "text", text: expect.stringMatching(/offline scripted model/) });
  });

  it("uses the scripted model with --offline even when a key is set", () => {
    const choice = createClient({
      offline: true,
      env: { ANTHROPIC_API_KEY: "sk-test" },
      envFile,
      scripted: scriptedWith(),
    });
    expect(choice.kind).toBe("scripted");
    expect(choice.notice).toMatch(/--offline was given/);
  });

  it("uses the API with a key from the shell, and names where the key came from", () => {
    const choice = createClient({ env: { ANTHROPIC_API_KEY: "sk-shell" }, envFile });
    expect(choice.kind).toBe("api");
    expect(choice.keySource).toBe("ANTHROPIC_API_KEY from the shell");
    expect(choice.notice).toBe(
      `Using https://api.anthropic.com, model ${DEFAULT_MODEL}, with ANTHROPIC_API_KEY from the shell.`,
    );
    expect(choice.client).toBeInstanceOf(Anthropic);
    expect(choice.client.apiKey).toBe("sk-shell");
  });

  it("uses the API with a key from the .env file, and names the file", () => {
    writeFileSync(envFile, "ANTHROPIC_API_KEY=sk-file\n");
    const choice = createClient({ env: {}, envFile, scripted: scriptedWith() });
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
    expect(createClient({ env: {}, envFile: join(dir, "none"), scripted: scriptedWith() }).model).toBe(DEFAULT_MODEL);
    expect(createClient({ env: {}, envFile, scripted: scriptedWith() }).model).toBe("model-from-file");
    expect(createClient({ env: { MODEL_ID: "model-from-shell" }, envFile, scripted: scriptedWith() }).model).toBe(
      "model-from-shell",
    );
    expect(
      createClient({ env: { MODEL_ID: "model-from-shell" }, envFile, model: "model-option", scripted: scriptedWith() })
        .model,
    ).toBe("model-option");
  });

  it("gives the scripted model the brain it is asked to use", async () => {
    const choice = createClient({ env: {}, envFile, scripted: scriptedWith(() => textReply("from my brain")) });
    const message = await choice.client.messages.create(params);
    expect(message.content).toEqual([{ type: "text", text: "from my brain" }]);
  });

  it("says which endpoint, model and credential it uses, never the credential's value", () => {
    writeFileSync(envFile, "ANTHROPIC_AUTH_TOKEN=tok-file-value\nANTHROPIC_BASE_URL=http://127.0.0.1:8080\n");
    const choice = createClient({ env: { MODEL_ID: "local" }, envFile });
    expect(choice.notice).toBe(
      `Using http://127.0.0.1:8080 (ANTHROPIC_BASE_URL from ${envFile}), model local, ` +
        `with ANTHROPIC_AUTH_TOKEN from ${envFile}.`,
    );
    expect(choice.notice).not.toContain("tok-file-value");
  });

  it("waits DEFAULT_MODEL_TIMEOUT_SECONDS for the model, or what it is told, in whole milliseconds", () => {
    const key = { ANTHROPIC_API_KEY: "sk" };
    expect(createClient({ env: key, envFile }).client.timeout).toBe(DEFAULT_MODEL_TIMEOUT_SECONDS * 1000);
    expect(createClient({ env: key, envFile, modelTimeoutSeconds: 2.5 }).client.timeout).toBe(2500);
    expect(createClient({ env: key, envFile, modelTimeoutSeconds: 0.0001 }).client.timeout).toBe(1);
    // beyond 2^31-1 ms setTimeout would fire at once: a huge timeout is the longest one it can keep
    expect(createClient({ env: key, envFile, modelTimeoutSeconds: 1e12 }).client.timeout).toBe(2 ** 31 - 1);
    expect(DEFAULT_MODEL_TIMEOUT_SECONDS).toBeLessThan(300);
  });

  it("bounds the scripted model's answers by the same timeout", async () => {
    const choice = createClient({
      env: {},
      envFile,
      modelTimeoutSeconds: 0.05,
      scripted: scriptedWith(() => ({ kind: "hang" })),
    });
    const error = await choice.client.messages.create(params).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EndpointError);
    expect((error as EndpointError).message).toBe(
      "no response from http://scripted-model.invalid/v1/messages within 0.05 s",
    );
  });
});

/**
 * Which credential a request really carries: the real client, sending to the scripted model on
 * 127.0.0.1, for each way the shell and .env can hold the two variables.
 */
describe("createClient's credentials, as sent", () => {
  async function sent(shell: NodeJS.ProcessEnv, dotenv: string) {
    writeFileSync(envFile, dotenv);
    const model = new ScriptedModel({ script: [textReply("ok")] });
    const server = await startScriptedServer(model);
    try {
      const choice = createClient({
        env: { ...shell, ANTHROPIC_BASE_URL: server.url },
        envFile,
        scripted: scriptedWith(),
      });
      if (choice.kind === "scripted") return { choice, headers: undefined };
      await choice.client.messages.create(params);
      const { headers } = model.requests[0];
      // this SDK sends a key and a token alike, as `Authorization: Bearer`; the client says which it holds
      const held = choice.client.apiKey ? "apiKey" : "authToken";
      return { choice, headers: { [held]: headers.authorization ?? headers["x-api-key"] } };
    } finally {
      await server.close();
    }
  }

  it("sends the shell's token, not the key in .env", async () => {
    const { choice, headers } = await sent({ ANTHROPIC_AUTH_TOKEN: "tok-shell" }, "ANTHROPIC_API_KEY=sk-file\n");
    expect(headers).toEqual({ authToken: "Bearer tok-shell" });
    expect(choice.keySource).toBe("ANTHROPIC_AUTH_TOKEN from the shell");
  });

  it("sends the shell's key, not the token in .env", async () => {
    const { choice, headers } = await sent({ ANTHROPIC_API_KEY: "sk-shell" }, "ANTHROPIC_AUTH_TOKEN=tok-file\n");
    expect(headers).toEqual({ apiKey: "Bearer sk-shell" });
    expect(choice.keySource).toBe("ANTHROPIC_API_KEY from the shell");
  });

  it("sends the key when one place holds both names", async () => {
    const both = "ANTHROPIC_API_KEY=sk-file\nANTHROPIC_AUTH_TOKEN=tok-file\n";
    expect((await sent({}, both)).headers).toEqual({ apiKey: "Bearer sk-file" });
    const shell = { ANTHROPIC_API_KEY: "sk-shell", ANTHROPIC_AUTH_TOKEN: "tok-shell" };
    expect((await sent(shell, both)).headers).toEqual({ apiKey: "Bearer sk-shell" });
  });

  it("reads an empty variable in the shell as unset: .env's credential is sent", async () => {
    const { choice, headers } = await sent(
      { ANTHROPIC_API_KEY: "", ANTHROPIC_AUTH_TOKEN: "  " },
      "ANTHROPIC_AUTH_TOKEN=tok-file\n",
    );
    expect(headers).toEqual({ authToken: "Bearer tok-file" });
    expect(choice.keySource).toBe(`ANTHROPIC_AUTH_TOKEN from ${envFile}`);
  });

  it("runs offline when the shell's variable is empty and .env has none (as .env.example ships)", async () => {
    const { choice } = await sent({ ANTHROPIC_API_KEY: "" }, "ANTHROPIC_API_KEY=\n");
    expect(choice.kind).toBe("scripted");
  });

  it("sends a key without the spaces around it", async () => {
    expect((await sent({ ANTHROPIC_API_KEY: " sk-shell\n" }, "")).headers).toEqual({ apiKey: "Bearer sk-shell" });
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
