/**
 * The cache meter, and the one reader it stands on (`AgentTurn`'s usage, then `countsOf`): every
 * recorded Messages API response that carries the cache's counts, the scripted model's, and the
 * OpenAI formats' `cached_tokens` through s09's adapters all read the same way.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import type { Message } from "@anthropic-ai/sdk/resources/messages";
import { streamTurn } from "@harness/s03-streaming";
import { messageFromChat, messageFromResponse } from "@harness/s09-providers";
import { reply, ScriptedModel, textReply, toolUse } from "@harness/scripted-model";
import { AgentTurn } from "@harness/shared";
import { chunkFixtures, FIXTURES_DIR, jsonFixtures, readJsonFixture, replayFetch } from "@harness/testkit";
import { describe, expect, it } from "vitest";
import { agentLoop } from "../src/agent-loop.ts";
import { CacheMeter, countsOf } from "../src/cache-meter.ts";
import { cached } from "../src/cached.ts";

const OPENAI_FIXTURES = join(import.meta.dirname, "..", "..", "s09-providers", "test", "fixtures", "openai");
const CACHE_FIELDS = ["cache_read_input_tokens", "cache_creation_input_tokens"];
const carriesCache = (usage: object | undefined) => CACHE_FIELDS.some((field) => field in (usage ?? {}));

/** A recorded stream's usage as the API meant it: message_start's, then message_delta's over it. */
function streamedUsage(name: string): Record<string, number> {
  const lines = readFileSync(join(FIXTURES_DIR, `${name}.chunks.txt`), "utf8")
    .split("\n")
    .filter(Boolean);
  const events = lines.map((line) => JSON.parse(line));
  const start = events.find((e) => e.type === "message_start")?.message.usage ?? {};
  const delta = events.find((e) => e.type === "message_delta")?.usage ?? {};
  return { ...start, ...Object.fromEntries(Object.entries(delta).filter(([, v]) => v !== null)) };
}

const expected = (usage: Record<string, number>) => ({
  input: usage.input_tokens,
  read: usage.cache_read_input_tokens ?? 0,
  written: usage.cache_creation_input_tokens ?? 0,
  output: usage.output_tokens,
});

describe("the cache meter's reader", () => {
  const json = jsonFixtures.filter((name) => carriesCache(readJsonFixture(name).usage));
  const streams = chunkFixtures.filter((name) => carriesCache(streamedUsage(name)));

  it("finds recorded responses that carry the cache's counts, streamed and whole", () => {
    expect(json.length).toBeGreaterThanOrEqual(5);
    expect(streams.length).toBeGreaterThanOrEqual(4);
  });

  it.each(json)("reads %s.json", (name) => {
    const message = readJsonFixture(name);
    const usage = message.usage as unknown as Record<string, number>;
    expect(countsOf(AgentTurn.fromResponse(message).usage)).toEqual(expected(usage));
  });

  it.each(streams)("reads %s.chunks.txt replayed through the SDK and s03's stream reader", async (name) => {
    const client = new Anthropic({ apiKey: "k", fetch: replayFetch(name), maxRetries: 0 });
    const message = await streamTurn(
      client,
      { model: "m", max_tokens: 10, messages: [] },
      new AbortController().signal,
    );
    expect(countsOf(AgentTurn.fromResponse(message as Message).usage)).toEqual(expected(streamedUsage(name)));
  });

  it("reads the scripted model's counts as it reports them", async () => {
    const model = new ScriptedModel({ script: [textReply("ok"), textReply("ok")] });
    const client = model.client();
    const body = {
      model: "m",
      max_tokens: 10,
      system: [{ type: "text" as const, text: "x".repeat(6000), cache_control: { type: "ephemeral" as const } }],
      messages: [{ role: "user" as const, content: "hi" }],
    };
    await client.messages.create(body);
    const again = await client.messages.create(body);
    const usage = again.usage as unknown as Record<string, number>;
    expect(usage.cache_read_input_tokens).toBeGreaterThan(1024);
    expect(countsOf(AgentTurn.fromResponse(again).usage)).toEqual(expected(usage));
  });

  it("reads OpenAI's cached_tokens as cache reads only when asked to (s09's adapters ask with a prompt_cache_key)", () => {
    const completion = JSON.parse(readFileSync(join(OPENAI_FIXTURES, "deepseek-tool-call.json"), "utf8"));
    expect(countsOf(AgentTurn.fromResponse(messageFromChat(completion, { cacheReads: true })).usage)).toEqual({
      input: 19,
      read: 320,
      written: 0,
      output: 92,
    });
    expect(countsOf(AgentTurn.fromResponse(messageFromChat(completion)).usage)).toEqual({
      input: 339,
      read: 0,
      written: 0,
      output: 92,
    });
    const xai = JSON.parse(readFileSync(join(OPENAI_FIXTURES, "xai-tool-call.json"), "utf8"));
    expect(countsOf(AgentTurn.fromResponse(messageFromChat(xai, { cacheReads: true })).usage)).toMatchObject({
      input: 307 - 244,
      read: 244,
    });
    const response = JSON.parse(
      readFileSync(join(OPENAI_FIXTURES, "openai-reasoning-encrypted-content.1.json"), "utf8"),
    );
    expect(countsOf(AgentTurn.fromResponse(messageFromResponse(response, { cacheReads: true })).usage)).toEqual({
      input: 865,
      read: 0,
      written: 0,
      output: 163,
    });
  });
});

describe("CacheMeter", () => {
  it("keeps each turn's counts as the loop tells them, and sums a run's and the session's", async () => {
    const big = "word ".repeat(1500);
    const model = new ScriptedModel({
      script: [reply([toolUse("bash", { command: `echo ${big}` })]), textReply("done"), textReply("again")],
    });
    const meter = new CacheMeter();
    const send = cached((r, s, e) => streamTurn(model.client(), r, s, e), { ttl: "5m" });
    const messages = [{ role: "user" as const, content: "go" }];
    await agentLoop(send, messages, { model: "m", cwd: process.cwd(), emit: meter.observe });
    expect(meter.turns).toHaveLength(2);
    const run = meter.sinceLastRun();
    expect(run).toEqual({
      input: meter.turns[0].input + meter.turns[1].input,
      read: meter.turns[1].read,
      written: meter.turns[0].written + meter.turns[1].written,
      output: meter.turns[0].output + meter.turns[1].output,
    });
    messages.push({ role: "user", content: "again" });
    await agentLoop(send, messages, { model: "m", cwd: process.cwd(), emit: meter.observe });
    const second = meter.sinceLastRun();
    expect(second.read).toBeGreaterThan(1024); // the whole first run, read back
    expect(meter.session.read).toBe(run.read + second.read);
  });
});
