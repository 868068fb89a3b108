import { describe, expect, it } from "vitest";
import { selectProvider } from "../src/connect/select-provider.ts";

const env = (shell: Record<string, string> = {}, file: Record<string, string> = {}) => ({ shell, file });

describe("selectProvider", () => {
  it("defaults to anthropic with an Anthropic credential, even beside an OpenAI key", () => {
    const chosen = selectProvider(undefined, env({ ANTHROPIC_API_KEY: "a", OPENAI_API_KEY: "o" }));
    expect(chosen).toEqual({
      format: "anthropic",
      formatReason: "ANTHROPIC_API_KEY",
      kind: "api",
      credential: "ANTHROPIC_API_KEY",
    });
  });

  it("defaults to openai-chat with only an OpenAI key, from the shell or from .env", () => {
    expect(selectProvider(undefined, env({ OPENAI_API_KEY: "o" }))).toMatchObject({
      format: "openai-chat",
      formatReason: "OPENAI_API_KEY",
      kind: "api",
      credential: "OPENAI_API_KEY",
    });
    expect(selectProvider(undefined, env({}, { OPENAI_API_KEY: "o" }))).toMatchObject({
      format: "openai-chat",
      kind: "api",
    });
  });

  it("takes ANTHROPIC_AUTH_TOKEN as an Anthropic credential", () => {
    expect(selectProvider(undefined, env({ ANTHROPIC_AUTH_TOKEN: "t" }))).toMatchObject({
      format: "anthropic",
      credential: "ANTHROPIC_AUTH_TOKEN",
    });
  });

  it("defaults to the scripted model speaking anthropic when no key is set", () => {
    expect(selectProvider(undefined, env())).toEqual({
      format: "anthropic",
      formatReason: "the default",
      kind: "scripted",
      scriptedReason: "no ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN is set",
    });
  });

  it("never sends one provider's key to another: --provider openai-chat with only an Anthropic key is scripted", () => {
    expect(selectProvider("openai-chat", env({ ANTHROPIC_API_KEY: "a" }))).toEqual({
      format: "openai-chat",
      formatReason: "--provider",
      kind: "scripted",
      scriptedReason: "no OPENAI_API_KEY is set",
    });
    expect(selectProvider("anthropic", env({ OPENAI_API_KEY: "o" }))).toMatchObject({ kind: "scripted" });
  });

  it("lets --provider choose the Responses API with an OpenAI key", () => {
    expect(selectProvider("openai-responses", env({ OPENAI_API_KEY: "o" }))).toMatchObject({
      format: "openai-responses",
      kind: "api",
      credential: "OPENAI_API_KEY",
    });
  });

  it("uses the scripted model with --offline, in the chosen format", () => {
    expect(selectProvider("openai-responses", env({ OPENAI_API_KEY: "o" }), true)).toMatchObject({
      format: "openai-responses",
      kind: "scripted",
      scriptedReason: "--offline was given",
    });
  });

  it("treats a blank variable as unset", () => {
    expect(selectProvider(undefined, env({ ANTHROPIC_API_KEY: "  ", OPENAI_API_KEY: "o" }))).toMatchObject({
      format: "openai-chat",
    });
  });
});
