import { ScriptedModel, startScriptedServer, textReply } from "@harness/scripted-model";
import { AgentTurn } from "@harness/shared";
import { afterEach, describe, expect, it } from "vitest";
import { createAdapter } from "../src/connect/create-adapter.ts";
import { DEFAULT_OPENAI_MODEL } from "../src/connect/select-provider.ts";

const NO_ENV_FILE = "/nonexistent/.env";
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});
const request = { model: "m", max_tokens: 100, messages: [{ role: "user" as const, content: "hi" }] };
/** For a run with a key: the scripted model is made only when it answers. */
const notMade = (): never => {
  throw new Error("the scripted model was made, though a key was set");
};

describe("createAdapter", () => {
  it("talks to OPENAI_BASE_URL with OPENAI_API_KEY over HTTP, and names both without the key's value", async () => {
    const model = new ScriptedModel({ script: [textReply("From the local server.")] });
    const server = await startScriptedServer(model);
    closers.push(server.close);
    const choice = createAdapter({
      provider: "openai-chat",
      env: { OPENAI_API_KEY: "sk-local-secret", OPENAI_BASE_URL: `${server.url}/v1`, MODEL_ID: "qwen3" },
      envFile: NO_ENV_FILE,
      scripted: notMade,
    });
    expect(choice).toMatchObject({
      format: "openai-chat",
      kind: "api",
      model: "qwen3",
      keySource: "OPENAI_API_KEY from the shell",
    });
    expect(choice.notice).toBe(
      `Using ${server.url}/v1 (OPENAI_BASE_URL from the shell) (openai-chat), model qwen3, with OPENAI_API_KEY from the shell.`,
    );
    expect(choice.notice).not.toContain("sk-local-secret");
    const turn = AgentTurn.fromResponse(
      (await choice.adapter.streamTurn(request, new AbortController().signal)) ?? fail(),
    );
    expect(turn.text).toBe("From the local server.");
    expect(model.requests[0]).toMatchObject({
      api: "chat-completions",
      headers: { authorization: "Bearer sk-local-secret" },
    });
  });

  it("defaults to openai-chat with only an OpenAI key, and to the OpenAI model", () => {
    const choice = createAdapter({ env: { OPENAI_API_KEY: "k" }, envFile: NO_ENV_FILE, scripted: notMade });
    expect(choice).toMatchObject({ format: "openai-chat", kind: "api", model: DEFAULT_OPENAI_MODEL });
    expect(choice.notice).toContain("https://api.openai.com/v1 (openai-chat)");
  });

  it("answers with the scripted model in the chosen format when that format has no key, the other key unused", async () => {
    const model = new ScriptedModel({ script: [textReply("Offline, in the Responses format.")] });
    const choice = createAdapter({
      provider: "openai-responses",
      env: { ANTHROPIC_API_KEY: "sk-ant" },
      envFile: NO_ENV_FILE,
      scripted: () => model,
    });
    expect(choice).toMatchObject({ format: "openai-responses", kind: "scripted" });
    expect(choice.notice).toMatch(
      /^Using the offline scripted model, speaking openai-responses \(no OPENAI_API_KEY is set\)/,
    );
    const message = await choice.adapter.streamTurn(request, new AbortController().signal);
    expect(AgentTurn.fromResponse(message ?? fail()).text).toBe("Offline, in the Responses format.");
    expect(model.requests.map((r) => r.api)).toEqual(["responses"]);
    expect(JSON.stringify(model.requests[0].headers)).not.toContain("sk-ant");
  });

  it("leaves the Anthropic format to createClient, as every chapter has it", () => {
    const choice = createAdapter({ env: {}, envFile: NO_ENV_FILE, scripted: () => new ScriptedModel() });
    expect(choice).toMatchObject({ format: "anthropic", kind: "scripted" });
    expect(choice.notice).toMatch(/no ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN is set/);
    const offline = createAdapter({
      offline: true,
      provider: "openai-chat",
      env: { OPENAI_API_KEY: "k" },
      envFile: NO_ENV_FILE,
      scripted: () => new ScriptedModel(),
    });
    expect(offline).toMatchObject({ kind: "scripted" });
    expect(offline.notice).toContain("--offline was given");
  });
});

function fail(): never {
  throw new Error("aborted");
}
