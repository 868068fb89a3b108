/**
 * The scripted model's prompt cache, through the real SDKs: what a request reads and writes, as
 * the Messages API reports it, and what OpenAI's formats report for a `prompt_cache_key`.
 */
import { BadRequestError } from "@anthropic-ai/sdk";
import type {
  MessageCreateParamsNonStreaming,
  MessageParam,
  TextBlockParam,
  Tool,
} from "@anthropic-ai/sdk/resources/messages";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { withoutCacheControl } from "../src/caching/cache-prefix.ts";
import { LOOKBACK_BLOCKS, MINIMUM_CACHEABLE_TOKENS } from "../src/caching/prompt-cache.ts";
import { textReply } from "../src/script.ts";
import { ScriptedModel } from "../src/scripted-model.ts";
import { estimateInputTokens } from "../src/wire.ts";

const MARK = { type: "ephemeral" } as const;
const tools: Tool[] = [{ name: "read", description: "x".repeat(5000), input_schema: { type: "object" } }];
const marked = (tool: Tool): Tool => ({ ...tool, cache_control: MARK });

/** A user message of `n` text blocks, the last one marked when `mark` is set. */
function blocks(n: number, mark: boolean, word = "block"): MessageParam {
  const content: TextBlockParam[] = Array.from({ length: n }, (_, i) => ({ type: "text", text: `${word} ${i}` }));
  if (mark) content[n - 1] = { ...content[n - 1], cache_control: MARK };
  return { role: "user", content };
}

function request(messages: MessageParam[], extra: Partial<MessageCreateParamsNonStreaming> = {}) {
  return { model: "claude-test", max_tokens: 100, tools: [marked(tools[0])], messages, ...extra };
}

/** A model that answers every request, its clock in the test's hands. */
function cachedModel() {
  const clock = { now: 0 };
  const model = new ScriptedModel({ brain: () => textReply("ok"), cache: { clock: () => clock.now } });
  return { model, clock, client: model.client({ maxRetries: 0 }) };
}

describe("the scripted model's prompt cache", () => {
  it("answers a request with no marker without cache counts, as before", async () => {
    const { client } = cachedModel();
    const stream = await client.messages.create({ ...request([blocks(1, false)]), tools, stream: true });
    for await (const event of stream) {
      if (event.type === "message_start")
        expect(Object.keys(event.message.usage)).toEqual(["input_tokens", "output_tokens"]);
    }
  });

  it("writes a marked prefix once, reads it after, and leaves both out of input_tokens", async () => {
    const { client } = cachedModel();
    const body = request([blocks(1, true)]);
    const total = estimateInputTokens(withoutCacheControl(body));
    const first = (await client.messages.create(body)).usage;
    expect(first.cache_read_input_tokens).toBe(0);
    expect(first.cache_creation_input_tokens).toBeGreaterThan(MINIMUM_CACHEABLE_TOKENS);
    expect(first.input_tokens + (first.cache_creation_input_tokens ?? 0)).toBe(total);
    const second = (await client.messages.create(body)).usage;
    expect(second.cache_read_input_tokens).toBe(first.cache_creation_input_tokens);
    expect(second.cache_creation_input_tokens).toBe(0);
    expect(second.input_tokens).toBe(first.input_tokens);
    expect(second.cache_creation).toEqual({ ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 });
  });

  it("hashes the content, not the markers, and keys each entry by model", async () => {
    const { client } = cachedModel();
    await client.messages.create(request([blocks(3, true)]));
    // the same blocks, the marker moved to the next block: the old prefix is found in the lookback
    const moved = request([blocks(3, false), { role: "assistant", content: "ok" }, blocks(1, true, "more")]);
    expect((await client.messages.create(moved)).usage.cache_read_input_tokens).toBeGreaterThan(0);
    const other = await client.messages.create({ ...request([blocks(3, true)]), model: "claude-other" });
    expect(other.usage.cache_read_input_tokens).toBe(0);
  });

  it(`looks back ${LOOKBACK_BLOCKS} blocks from a breakpoint, and no further`, async () => {
    const { client } = cachedModel();
    const start = [blocks(1, true, "start")];
    const request = (messages: MessageParam[]) => ({ model: "claude-test", max_tokens: 100, tools, messages });
    await client.messages.create(request(start));
    const later = (n: number, anchor: boolean) => [
      blocks(1, anchor, "start"),
      { role: "assistant" as const, content: "ok" },
      blocks(n, true),
    ];
    // the entry is 1 + 19 blocks behind the marker: found
    expect(
      (await client.messages.create(request(later(LOOKBACK_BLOCKS - 2, false)))).usage.cache_read_input_tokens,
    ).toBeGreaterThan(0);
    const { model, client: fresh } = cachedModel();
    await fresh.messages.create(request(start));
    const far = await fresh.messages.create(request(later(LOOKBACK_BLOCKS, false)));
    expect(far.usage.cache_read_input_tokens).toBe(0);
    expect(model.requests).toHaveLength(2);
    // a second marker on the old last block finds it again
    const { client: anchored } = cachedModel();
    await anchored.messages.create(request(start));
    const found = await anchored.messages.create(request(later(LOOKBACK_BLOCKS, true)));
    expect(found.usage.cache_read_input_tokens).toBeGreaterThan(0);
  });

  it(`never caches a prefix under ${MINIMUM_CACHEABLE_TOKENS} tokens`, async () => {
    const { client } = cachedModel();
    const short = { model: "claude-test", max_tokens: 100, messages: [blocks(1, true)] };
    expect((await client.messages.create(short)).usage.cache_creation_input_tokens).toBe(0);
    expect((await client.messages.create(short)).usage.cache_read_input_tokens).toBe(0);
  });

  it("forgets an entry five minutes after its last use, and a 1h entry after an hour", async () => {
    const { client, clock } = cachedModel();
    const body = request([blocks(1, true)]);
    await client.messages.create(body);
    clock.now += 4 * 60_000;
    expect((await client.messages.create(body)).usage.cache_read_input_tokens).toBeGreaterThan(0); // and refreshed
    clock.now += 4 * 60_000;
    expect((await client.messages.create(body)).usage.cache_read_input_tokens).toBeGreaterThan(0);
    clock.now += 5 * 60_000 + 1;
    expect((await client.messages.create(body)).usage.cache_read_input_tokens).toBe(0);
    const hour = request([blocks(1, false)], {
      tools: [{ ...tools[0], cache_control: { type: "ephemeral", ttl: "1h" } }],
    });
    const written = (await client.messages.create(hour)).usage;
    expect(written.cache_creation?.ephemeral_1h_input_tokens).toBe(written.cache_creation_input_tokens);
    clock.now += 59 * 60_000;
    expect((await client.messages.create(hour)).usage.cache_read_input_tokens).toBeGreaterThan(0);
  });

  it("refuses more than four breakpoints in the API's words", async () => {
    const { client, model } = cachedModel();
    const five = request([blocks(1, true), { role: "assistant", content: "ok" }, blocks(1, true)], {
      system: [
        { type: "text", text: "a", cache_control: MARK },
        { type: "text", text: "b", cache_control: MARK },
      ],
      cache_control: MARK,
    });
    const error = await client.messages.create(five).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).message).toContain(
      "A maximum of 4 blocks with cache_control may be provided. Found 6.",
    );
    expect(model.pending).toBe(0);
  });

  it("reads the request's own cache_control as a marker on its last block", async () => {
    const { client } = cachedModel();
    const body = request([blocks(2, false)], { tools, cache_control: MARK });
    expect((await client.messages.create(body)).usage.cache_creation_input_tokens).toBeGreaterThan(0);
    expect((await client.messages.create(body)).usage.cache_read_input_tokens).toBeGreaterThan(0);
  });
});

describe("the scripted model's OpenAI formats", () => {
  const openAi = (model: ScriptedModel) =>
    new OpenAI({ apiKey: "k", baseURL: "http://scripted-model.invalid/v1", fetch: model.fetch, maxRetries: 0 });
  const chat = (key?: string) => ({
    model: "gpt-test",
    messages: [
      { role: "system" as const, content: "s".repeat(6000) },
      { role: "user" as const, content: "hi" },
    ],
    ...(key ? { prompt_cache_key: key } : {}),
  });

  it("report cached_tokens for a prompt_cache_key, in steps of 128, and none without one", async () => {
    const model = new ScriptedModel({ brain: () => textReply("ok") });
    const client = openAi(model);
    expect((await client.chat.completions.create(chat())).usage?.prompt_tokens_details).toBeUndefined();
    const first = await client.chat.completions.create(chat("session-1"));
    expect(first.usage?.prompt_tokens_details?.cached_tokens).toBe(0);
    const second = await client.chat.completions.create(chat("session-1"));
    const cached = second.usage?.prompt_tokens_details?.cached_tokens ?? 0;
    expect(cached).toBeGreaterThanOrEqual(1024);
    expect(cached % 128).toBe(0);
    expect(second.usage?.prompt_tokens).toBe(first.usage?.prompt_tokens);
    const response = await client.responses.create({
      model: "gpt-test",
      instructions: "s".repeat(6000),
      input: "hi",
      prompt_cache_key: "session-2",
    });
    expect(response.usage?.input_tokens_details.cached_tokens).toBe(0);
  });
});
