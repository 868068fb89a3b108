/**
 * The scripted model on long conversations: its context window (the API's real 400), the demo
 * brain's summary, notes and recall, and the server-side context management it emulates, all
 * through the real SDK.
 */
import { BadRequestError } from "@anthropic-ai/sdk";
import type { MessageCreateParams, MessageParam, Tool } from "@anthropic-ai/sdk/resources/messages";
import { bashToolDefinition } from "@harness/shared";
import { describe, expect, it } from "vitest";
import { COMPACT_BETA, CONTEXT_MANAGEMENT_BETA, SERVER_CLEARED_RESULT } from "../src/compaction/context-management.ts";
import { findFact } from "../src/compaction/context-rules.ts";
import { demoBrain } from "../src/demo-brain.ts";
import { reply, textReply, toolUse } from "../src/script.ts";
import { ScriptedModel } from "../src/scripted-model.ts";
import { estimateInputTokens } from "../src/wire.ts";

const tools: Tool[] = [bashToolDefinition];
const params = (messages: MessageParam[]) => ({ model: "claude-test", max_tokens: 256, tools, messages });

/** A history of `n` bash exchanges, each result `size` characters long. */
function longHistory(n: number, size: number): MessageParam[] {
  const messages: MessageParam[] = [{ role: "user", content: "Note: the release codename is BLUE-HERON." }];
  messages.push({ role: "assistant", content: [{ type: "text", text: "Noted: the release codename is BLUE-HERON." }] });
  for (let i = 0; i < n; i++) {
    messages.push({ role: "user", content: `Run \`cat part-${i}.txt\`` });
    messages.push({
      role: "assistant",
      content: [{ type: "tool_use", id: `t${i}`, name: "bash", input: { command: `cat part-${i}.txt` } }],
    });
    messages.push({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: `t${i}`, content: `${"x".repeat(size)}\n[exit code 0]` }],
    });
    messages.push({ role: "assistant", content: [{ type: "text", text: `part ${i} read` }] });
  }
  return messages;
}

const textOf = (content: readonly { type: string; text?: string }[]) =>
  content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");

describe("the scripted model's context window", () => {
  it("refuses a request over its window with the API's 400 and its words, and takes no script step", async () => {
    const model = new ScriptedModel({ script: [textReply("fits")], contextWindow: 500 });
    const client = model.client({ maxRetries: 0 });
    const messages = longHistory(2, 1000);
    const tokens = estimateInputTokens(params(messages));
    const error = await client.messages.create(params(messages)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).error).toEqual({
      type: "error",
      error: { type: "invalid_request_error", message: `prompt is too long: ${tokens} tokens > 500 maximum` },
      request_id: "req_scripted",
    });
    expect(model.pending).toBe(1);
    const small = await client.messages.create(params([{ role: "user", content: "hi" }]));
    expect(textOf(small.content)).toBe("fits");
  });
});

describe("the scripted model's context window, in the OpenAI formats' words", () => {
  const post = (model: ScriptedModel, path: string, body: unknown) =>
    model.fetch(`http://scripted-model.invalid/v1/${path}`, {
      method: "POST",
      headers: { authorization: "Bearer scripted", "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const long = "x".repeat(4000);

  it("refuses a Chat Completions request with context_length_exceeded and both numbers", async () => {
    const model = new ScriptedModel({ script: [textReply("fits")], contextWindow: 500 });
    const response = await post(model, "chat/completions", { model: "m", messages: [{ role: "user", content: long }] });
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as { error: { message: string; code: string; param: string } };
    expect(error).toMatchObject({ code: "context_length_exceeded", param: "messages", type: "invalid_request_error" });
    expect(error.message).toMatch(
      /^This model's maximum context length is 500 tokens\. However, your messages resulted in \d+ tokens\./,
    );
    expect(model.pending).toBe(1);
  });

  it("refuses a Responses request with context_length_exceeded and no numbers, as that API does", async () => {
    const model = new ScriptedModel({ script: [textReply("fits")], contextWindow: 500 });
    const response = await post(model, "responses", { model: "m", input: long });
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as { error: { message: string; code: string } };
    expect(error).toMatchObject({ code: "context_length_exceeded", param: "input" });
    expect(error.message).not.toMatch(/\d/);
  });
});

describe("the demo brain on long conversations", () => {
  it("summarises the conversation it is sent when asked, from its real content", async () => {
    const client = new ScriptedModel({ brain: demoBrain }).client();
    const messages = longHistory(3, 50);
    messages.push({ role: "user", content: "Summarise this conversation in these sections: ..." });
    const answer = await client.messages.create({ ...params(messages), tool_choice: { type: "none" } });
    const summary = textOf(answer.content);
    expect(summary).toContain("- noted: the release codename is BLUE-HERON.");
    expect(summary).toContain("- ran `cat part-2.txt`: exit 0, 1 line, first: xxxx");
    expect(summary).not.toContain("Summarise this conversation");
  });

  it("takes a note, and recalls it only while the conversation it is sent holds it", async () => {
    const client = new ScriptedModel({ brain: demoBrain }).client();
    const ask = (messages: MessageParam[]) => client.messages.create(params(messages)).then((m) => textOf(m.content));
    expect(await ask([{ role: "user", content: "Note: the port is 8123." }])).toBe("Noted: the port is 8123.");
    const held: MessageParam[] = [
      { role: "user", content: "Note: the port is 8123." },
      { role: "assistant", content: "Noted: the port is 8123." },
      { role: "user", content: "What is the port you noted?" },
    ];
    expect(await ask(held)).toBe("The port is 8123.");
    expect(await ask(held.slice(2))).toBe(
      "I do not know the port: nothing in the conversation I was sent says what it is.",
    );
  });

  it("finds the latest value of a fact in text, tool results and compaction blocks", () => {
    expect(findFact("build number", longHistory(0, 0))).toBeUndefined();
    const messages: MessageParam[] = [
      { role: "user", content: [{ type: "tool_result", tool_use_id: "a", content: "the build number is 41" }] },
      { role: "assistant", content: [{ type: "compaction", content: "- noted: the build number is 42." } as never] },
    ];
    expect(findFact("build number", messages)).toBe("42");
  });
});

describe("server-side context management, emulated", () => {
  const clearing = {
    edits: [
      {
        type: "clear_tool_uses_20250919",
        trigger: { type: "input_tokens", value: 300 },
        keep: { type: "tool_uses", value: 1 },
      },
    ],
  };
  const compacting = { edits: [{ type: "compact_20260112", trigger: { type: "input_tokens", value: 600 } }] };

  it("refuses context_management without its beta header, in the API's words", async () => {
    const client = new ScriptedModel({ script: [textReply("no")] }).client({ maxRetries: 0 });
    const body = { ...params(longHistory(1, 10)), context_management: clearing } as MessageCreateParams;
    const error = await client.messages.create(body).catch((e: unknown) => e);
    expect((error as BadRequestError).status).toBe(400);
    expect((error as BadRequestError).error).toMatchObject({
      error: { message: "context_management: Extra inputs are not permitted" },
    });
  });

  it("clears old tool results above the trigger, keeping the latest, and says so in applied_edits", async () => {
    let seen: MessageParam[] = [];
    const model = new ScriptedModel({
      brain: (request) => {
        seen = request.messages;
        return textReply("ok");
      },
    });
    const answer = await model.client().beta.messages.create({
      ...params(longHistory(3, 400)),
      betas: [CONTEXT_MANAGEMENT_BETA],
      context_management: clearing as never,
    });
    expect(model.requests[0].headers["anthropic-beta"]).toBe(CONTEXT_MANAGEMENT_BETA);
    const results = seen
      .flatMap((m) => (typeof m.content === "string" ? [] : m.content))
      .filter((b) => b.type === "tool_result");
    expect(results.map((r) => (r.type === "tool_result" ? r.content === SERVER_CLEARED_RESULT : null))).toEqual([
      true,
      true,
      false,
    ]);
    expect(answer.context_management?.applied_edits).toEqual([
      expect.objectContaining({ type: "clear_tool_uses_20250919", cleared_tool_uses: 2 }),
    ]);
  });

  it("streams a compaction block as the API does, and reads from its summary once it is sent back unchanged", async () => {
    const asked: MessageParam[][] = [];
    const model = new ScriptedModel({
      brain: (request) => {
        asked.push(request.messages);
        const last = request.messages.at(-1);
        const answered = Array.isArray(last?.content) && last.content.some((b) => b.type === "tool_result");
        return answered ? textReply("done") : reply([toolUse("bash", { command: "echo again" })]);
      },
    });
    const client = model.client();
    const history = longHistory(3, 400);
    history.push({ role: "user", content: "Run `echo again`" });
    // biome-ignore lint/suspicious/noExplicitAny: the beta params, built loosely for the test
    const request: any = { ...params(history), betas: [COMPACT_BETA], context_management: compacting };
    const events: string[] = [];
    const stream = await client.beta.messages.create({ ...request, stream: true });
    for await (const event of stream as unknown as AsyncIterable<{
      type: string;
      delta?: { type: string };
      content_block?: { type: string };
    }>) {
      if (event.type === "content_block_delta") events.push(String(event.delta?.type));
      if (event.type === "content_block_start") events.push(String(event.content_block?.type));
    }
    expect(events.slice(0, 2)).toEqual(["compaction", "compaction_delta"]);

    const first = await client.beta.messages.create(request);
    const [block, call] = first.content;
    expect(block.type).toBe("compaction");
    expect(block.type === "compaction" && block.content).toContain("- noted: the release codename is BLUE-HERON.");
    // the model read the summary and the request, and nothing of the history before them
    expect(asked[1]).toHaveLength(1);
    expect(textOf(asked[1][0].content as never)).toContain("Run `echo again`");

    // the block goes back as it came; the server reads from it on, and compacts no more
    const id = call.type === "tool_use" ? call.id : "";
    const next: MessageParam[] = [
      ...history,
      { role: "assistant", content: first.content as never },
      { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: "again\n[exit code 0]" }] },
    ];
    const second = await client.beta.messages.create({ ...request, messages: next });
    expect(second.content.map((b) => b.type)).toEqual(["text"]);
    expect(asked[2].map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(textOf(asked[2][0].content as never)).toContain("Run `echo again`");
    expect(JSON.stringify(model.requests[2].body.messages.at(-2))).toBe(JSON.stringify(next.at(-2)));
  });
});
