import { describe, expect, it } from "vitest";
import { credentialValues, REDACTED, withoutSecrets } from "../src/credential-values.ts";

const NO_ENV_FILE = "/nonexistent/.env";

describe("credentialValues", () => {
  it("holds the value of every variable named as a key or a token, of any provider, and no other", () => {
    const env = {
      ANTHROPIC_API_KEY: "anthropic-key-1",
      ANTHROPIC_AUTH_TOKEN: "anthropic-token-2",
      OPENAI_API_KEY: "openai-key-3",
      OPENAI_BASE_URL: "http://localhost:11434/v1",
      HOME: "/home/someone",
    };
    expect(credentialValues(env, NO_ENV_FILE).sort()).toEqual(["anthropic-key-1", "anthropic-token-2", "openai-key-3"]);
  });

  it("leaves out values shorter than 8 characters, which would blank out ordinary words", () => {
    expect(credentialValues({ OPENAI_API_KEY: "ollama" }, NO_ENV_FILE)).toEqual([]);
  });
});

describe("withoutSecrets", () => {
  it("replaces each secret wherever it appears", () => {
    expect(withoutSecrets("a abcdefgh1 b abcdefgh1", ["abcdefgh1"])).toBe(`a ${REDACTED} b ${REDACTED}`);
  });
});
