import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { reply, ScriptedModel, text, textReply, toolUse } from "@harness/scripted-model";
import { historyProblems } from "@harness/shared";
import { describe, expect, it } from "vitest";
import { secretsOf } from "../src/flags.ts";
import { REDACTED, redactLine } from "../src/redact.ts";
import { readTrace } from "../src/viewer/read-trace.ts";
import { tempDir, testTrace, tracedRun } from "./scripted-trace.ts";

/** The prefix of an Anthropic key, split so no secret scanner takes these fakes for real keys. */
const FAKE = ["sk", "ant", ""].join("-");

describe("secretsOf (what main.ts gives the trace to redact)", () => {
  it("holds the API key and the auth token of the environment", () => {
    const secrets = secretsOf({
      ANTHROPIC_API_KEY: "key-from-the-shell-1",
      ANTHROPIC_AUTH_TOKEN: "token-from-shell-2",
    });
    expect(secrets).toContain("key-from-the-shell-1");
    expect(secrets).toContain("token-from-shell-2");
  });

  it("holds every variable named as a key, another provider's too, and no other", () => {
    const secrets = secretsOf({ OPENAI_API_KEY: "openai-key-value-3", HOME: "/home/someone-long" });
    expect(secrets).toContain("openai-key-value-3");
    expect(secrets).not.toContain("/home/someone-long");
  });

  it("ignores values shorter than 8 characters, which would blank out ordinary words", () => {
    const secrets = secretsOf({ ANTHROPIC_API_KEY: "test", ANTHROPIC_AUTH_TOKEN: "1234567" });
    expect(secrets).not.toContain("test");
    expect(secrets).not.toContain("1234567");
    expect(secretsOf({ ANTHROPIC_API_KEY: "12345678" })).toContain("12345678");
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
    const cwd = tempDir("s04-redact-");
    writeFileSync(join(cwd, "config.env"), `ANTHROPIC_API_KEY=${apiKey}\nOTHER=${shaped}\n`);
    const model = new ScriptedModel({
      script: [
        reply([text(`I will read it (${apiKey}).`), toolUse("read_file", { path: "config.env" })]),
        textReply(`The file holds ${apiKey} and ${shaped}.`),
      ],
    });
    // the environment's secrets, as main.ts gives them to the writer
    const traced = testTrace(
      "redacted",
      join(tempDir("s04-redact-traces-"), "traces"),
      secretsOf({ ANTHROPIC_API_KEY: apiKey }),
    );
    const { writer } = traced;
    const messages: MessageParam[] = [{ role: "user", content: `My key is ${apiKey}, and this one: ${shaped}` }];
    await tracedRun(model.client(), messages, { model: "m", cwd }, traced);

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
    expect(historyProblems(messages)).toEqual([]);
  });
});
