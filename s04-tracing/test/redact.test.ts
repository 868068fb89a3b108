import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { reply, ScriptedModel, text, textReply, toolUse } from "@harness/scripted-model";
import { isValidHistory } from "@harness/shared";
import { afterEach, describe, expect, it, vi } from "vitest";
import { agentLoop } from "../src/agent-loop.ts";
import { readTrace } from "../src/viewer/read-trace.ts";
import { knownSecrets, REDACTED, redactLine } from "../src/redact.ts";
import { TraceWriter } from "../src/trace-writer.ts";

/** The prefix of an Anthropic key, split so no secret scanner takes these fakes for real keys. */
const FAKE = ["sk", "ant", ""].join("-");

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("knownSecrets", () => {
  it("holds the API key and the auth token of the environment", () => {
    const secrets = knownSecrets({
      ANTHROPIC_API_KEY: "key-from-the-shell-1",
      ANTHROPIC_AUTH_TOKEN: "token-from-shell-2",
    });
    expect(secrets).toContain("key-from-the-shell-1");
    expect(secrets).toContain("token-from-shell-2");
  });

  it("holds every variable named as a key, another provider's too, and no other", () => {
    const secrets = knownSecrets({ OPENAI_API_KEY: "openai-key-value-3", HOME: "/home/someone-long" });
    expect(secrets).toEqual(["openai-key-value-3"]);
  });

  it("ignores values shorter than 8 characters, which would blank out ordinary words", () => {
    const secrets = knownSecrets({ ANTHROPIC_API_KEY: "test", ANTHROPIC_AUTH_TOKEN: "1234567" });
    expect(secrets).not.toContain("test");
    expect(secrets).not.toContain("1234567");
    expect(knownSecrets({ ANTHROPIC_API_KEY: "12345678" })).toContain("12345678");
  });
});

describe("redactLine", () => {
  it("replaces each known secret wherever it appears", () => {
    const line = JSON.stringify({ a: "key=abcdefgh1234", b: ["x abcdefgh1234 y"], abcdefgh1234: 1 });
    const out = redactLine(line, ["abcdefgh1234"]);
    expect(out).not.toContain("abcdefgh1234");
    expect(JSON.parse(out)).toEqual({ a: `key=${REDACTED}`, b: [`x ${REDACTED} y`], [REDACTED]: 1 });
  });

  it("finds a secret in its JSON-escaped form", () => {
    const secret = 'pa"ss\\word/1234';
    const line = JSON.stringify({ output: `secret: ${secret}` });
    const out = redactLine(line, [secret]);
    expect(out).not.toContain(JSON.stringify(secret).slice(1, -1));
    expect(JSON.parse(out).output).toBe(`secret: ${REDACTED}`);
  });

  it("replaces anything shaped like an Anthropic key, known or not", () => {
    const line = JSON.stringify({ text: `use ${FAKE}api03-AbC_dEf-123456789 and ${FAKE}admin01-zzzzzzzzzz` });
    const out = redactLine(line, []);
    expect(out).not.toMatch(/sk-ant-[A-Za-z0-9]/);
    expect(JSON.parse(out).text).toBe(`use ${REDACTED} and ${REDACTED}`);
  });

  it("leaves a line without secrets as it was", () => {
    const line = JSON.stringify({ text: "sk-ant- alone is not a key; neither is sk-other-123456789" });
    expect(redactLine(line, ["absent-secret"])).toBe(line);
  });
});

describe("redaction in a traced run", () => {
  it("keeps the environment's key and key-shaped text out of the trace file, in prompts and tool output", async () => {
    const apiKey = "sk-live-test-0123456789abcdef";
    const shaped = `${FAKE}api03-LeakedInAPrompt_0123456789`;
    vi.stubEnv("ANTHROPIC_API_KEY", apiKey);
    const cwd = mkdtempSync(join(tmpdir(), "s03-redact-"));
    writeFileSync(join(cwd, "config.env"), `ANTHROPIC_API_KEY=${apiKey}\nOTHER=${shaped}\n`);
    const model = new ScriptedModel({
      script: [
        reply([text(`I will read it (${apiKey}).`), toolUse("read_file", { path: "config.env" })]),
        textReply(`The file holds ${apiKey} and ${shaped}.`),
      ],
    });
    const traces = join(mkdtempSync(join(tmpdir(), "s03-redact-traces-")), "traces");
    const writer = new TraceWriter("redacted", traces); // default: the environment's secrets
    const messages: MessageParam[] = [{ role: "user", content: `My key is ${apiKey}, and this one: ${shaped}` }];
    await agentLoop(model.client(), messages, { model: "m", cwd, trace: writer });

    // the loop itself is unchanged: the model did get the file's content
    expect(JSON.stringify(model.requests[1].body.messages)).toContain(apiKey);
    const raw = readFileSync(writer.path);
    expect(raw.includes(apiKey)).toBe(false);
    expect(raw.includes(shaped)).toBe(false);
    expect(raw.includes("sk-ant-api03")).toBe(false);
    expect(raw.toString("utf8").split(REDACTED).length - 1).toBeGreaterThanOrEqual(6);
    // and the trace still reads
    const trace = readTrace(writer.path);
    expect(trace.skippedLines).toBe(0);
    expect(trace.records.map((r) => r.type)).toEqual(["iteration", "iteration", "result"]);
    expect(isValidHistory(messages)).toBe(true);
  });
});
