/**
 * A compaction through the scripted model, its summaries scripted (or written by `sessionBrain`,
 * which lists the notes it was sent): the summary is asked of the model with the history as it
 * is, the history becomes that summary and a tail, facts stated early survive, a head too long
 * for one request is summarised in parts (asked again in smaller ones when the model refuses a
 * part as too long), and every way a compaction can fail leaves the history as it was.
 */
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { describeError } from "@harness/cli";
import { ALL_TOOLS, toApiTool } from "@harness/s02-tool-dispatch";
import { sendStreamed } from "@harness/s03-streaming";
import { estimateInputTokens, ScriptedModel, textReply } from "@harness/scripted-model";
import { historyProblems } from "@harness/shared";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type CompactOptions,
  compactHistory,
  MAX_SUMMARY_REFUSALS,
  SUMMARY_OPENING,
} from "../src/compaction/compact-history.ts";
import { SUMMARY_PROMPT, SUMMARY_RESULT_CHARS } from "../src/compaction/request-summary.ts";
import { estimateTokens } from "../src/measure-context.ts";
import { promptTooLong } from "../src/prompt-too-long.ts";
import { answer, historyFrom, steps, tools } from "./histories.ts";
import { sessionBrain } from "./session-brain.ts";

const options = (over: Partial<CompactOptions> = {}): CompactOptions => ({
  model: "claude-test",
  tools: ALL_TOOLS.map(toApiTool),
  maxTokens: 1024,
  tailTokens: 400,
  signal: new AbortController().signal,
  ...over,
});

const NEEDLE = "Note: the deploy key is K-7731.";
/** What the model answers when asked to summarise a history that holds NEEDLE. */
const SUMMARY = "## Task\n- Note: the deploy key is K-7731.\n## What is left\n- nothing";

describe("compactHistory", () => {
  it("asks for the summary with the history, the tools, no tool choice and the summary prompt, then keeps a tail", async () => {
    const model = new ScriptedModel({ script: [textReply(SUMMARY)] });
    const messages = historyFrom([tools(1, 3000), tools(2, 800), tools(1, 100)], NEEDLE);
    const before = structuredClone(messages);
    const outcome = await compactHistory(sendStreamed(model.client()), messages, options());
    expect(outcome).toMatchObject({ kind: "compacted", summarised: 5 });
    const [asked] = model.requests;
    expect(asked.body.tool_choice).toEqual({ type: "none" });
    expect(asked.body.tools).toEqual(options().tools);
    expect(asked.body.messages).toHaveLength(5);
    expect(JSON.stringify(asked.body.messages.at(-1))).toContain(JSON.stringify(SUMMARY_PROMPT).slice(1, -1));
    // a long result is clipped in the request, so the request fits
    expect(JSON.stringify(asked.body.messages)).toContain(`[… ${3000 - SUMMARY_RESULT_CHARS} characters cut …]`);
    // the history: the summary, then the last turn word for word
    expect(messages.slice(1)).toEqual(before.slice(5));
    expect(messages[0].content).toEqual([
      { type: "text", text: `${SUMMARY_OPENING}\n\n${SUMMARY}` },
      { type: "text", text: NEEDLE }, // the latest request, word for word
    ]);
    expect(historyProblems(messages)).toEqual([]);
    expect(estimateTokens(messages)).toBeLessThan(estimateTokens(before));
  });

  it("passes the user's instructions to the summary request", async () => {
    const model = new ScriptedModel({ script: [textReply("## Task\n- line counts: 1 and 1")] });
    const messages = historyFrom([tools(1, 500), tools(1, 500), answer]);
    await compactHistory(
      sendStreamed(model.client()),
      messages,
      options({ instructions: "keep the line counts", tailTokens: 0 }),
    );
    expect(JSON.stringify(model.requests[0].body.messages.at(-1))).toContain(
      "Additional instructions from the user: keep the line counts",
    );
    expect(JSON.stringify(messages[0])).toContain("line counts: 1 and 1");
  });

  it("sends each summary the one before it, so a fact stated early is kept through compaction after compaction", async () => {
    const model = new ScriptedModel({ brain: sessionBrain });
    const messages = historyFrom([], NEEDLE);
    for (let round = 0; round < 4; round++) {
      // the history grows between compactions: two more turns of long results
      const more = historyFrom([tools(1, 1500), tools(1, 1500)], "", `round${round}`).slice(1);
      messages.push(...more);
      expect(historyProblems(messages)).toEqual([]);
      expect((await compactHistory(sendStreamed(model.client()), messages, options())).kind).toBe("compacted");
    }
    // every summary request after the first held the summary before it: what the model summarised again
    const asked = model.requests.map((r) => JSON.stringify(r.body.messages));
    expect(asked).toHaveLength(4);
    for (const sent of asked.slice(1)) expect(sent).toContain(SUMMARY_OPENING);
    // and what the model is sent next still holds the fact
    messages.push(
      { role: "assistant", content: "Done." },
      { role: "user", content: "What is the deploy key you noted?" },
    );
    const answer = await model.client().messages.create({ model: "m", max_tokens: 100, messages });
    expect(answer.content).toEqual([{ type: "text", text: "The deploy key is K-7731." }]);
  });

  it("leaves the history as it was when the summary call fails, is empty, or is interrupted", async () => {
    const messages = historyFrom([tools(1, 2000), tools(1, 2000)]);
    const before = structuredClone(messages);
    const failing = new ScriptedModel({ script: [{ kind: "http_error", status: 400, message: "no" }] });
    const told = options({ describeError }); // the CLI's line for an error, as main.ts gives it
    expect(await compactHistory(sendStreamed(failing.client({ maxRetries: 0 })), messages, told)).toMatchObject({
      kind: "failed",
      reason: "the summary call failed: the API answered 400 invalid_request_error: no",
    });
    const empty = new ScriptedModel({ script: [{ kind: "reply", content: [] }] });
    expect(await compactHistory(sendStreamed(empty.client()), messages, options())).toEqual({
      kind: "failed",
      reason: "the model returned an empty summary",
    });
    const controller = new AbortController();
    const hanging = new ScriptedModel({ script: [{ kind: "hang" }] });
    setTimeout(() => controller.abort(), 20);
    expect(
      await compactHistory(sendStreamed(hanging.client()), messages, options({ signal: controller.signal })),
    ).toEqual({
      kind: "aborted",
    });
    const long = new ScriptedModel({ script: [textReply("x".repeat(8000))] });
    expect(await compactHistory(sendStreamed(long.client()), messages, options())).toEqual({
      kind: "failed",
      reason: "the summary is no shorter than what it replaces",
    });
    expect(messages).toEqual(before);
  });

  it("summarises a head longer than a summary request may be in parts, each request carrying the summary so far", async () => {
    const model = new ScriptedModel({ brain: sessionBrain });
    const messages = historyFrom(
      Array.from({ length: 8 }, () => tools(1, 400)),
      NEEDLE,
    );
    const requestTokens = 1500; // the whole head's request would be about 2,000
    const outcome = await compactHistory(sendStreamed(model.client()), messages, options({ requestTokens }));
    expect(outcome).toMatchObject({ kind: "compacted" });
    expect(model.requests.length).toBeGreaterThan(1);
    for (const [i, asked] of model.requests.entries()) {
      expect(estimateTokens(asked.body)).toBeLessThanOrEqual(requestTokens);
      // the first part opens with the first prompt; every later one with the summary before it
      expect(JSON.stringify(asked.body.messages[0])).toContain(i === 0 ? NEEDLE : SUMMARY_OPENING);
      expect(historyProblems(asked.body.messages)).toEqual([]);
    }
    expect(JSON.stringify(messages[0])).toContain(NEEDLE); // kept through every part
    expect(historyProblems(messages)).toEqual([]);
  });

  it("asks again in smaller parts when a summary call is refused as too long, but never a single turn again", async () => {
    // the estimate says 3,000 tokens fit; the model reads 1,500 (a tokenizer that counts more, say)
    const model = new ScriptedModel({ brain: sessionBrain, contextWindow: 1500 });
    const messages = historyFrom(
      Array.from({ length: 8 }, () => tools(1, 400)),
      NEEDLE,
    );
    const send = sendStreamed(model.client({ maxRetries: 0 }));
    const outcome = await compactHistory(send, messages, options({ requestTokens: 3000, tooLong: promptTooLong }));
    expect(outcome).toMatchObject({ kind: "compacted" });
    const refused = model.requests.filter((r) => estimateInputTokens(r.body) > 1500);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.length).toBeLessThanOrEqual(MAX_SUMMARY_REFUSALS);
    expect(JSON.stringify(messages[0])).toContain(NEEDLE);
    // a first turn larger than the model reads: sent once, refused, and the history stays as it was
    const huge = historyFrom([tools(1, 400), tools(1, 400)], `${NEEDLE} ${"x".repeat(6000)}`);
    const before = structuredClone(huge);
    const small = new ScriptedModel({ brain: sessionBrain, contextWindow: 1500 });
    const told = options({ requestTokens: 1500, tooLong: promptTooLong, describeError });
    expect(await compactHistory(sendStreamed(small.client({ maxRetries: 0 })), huge, told)).toEqual({
      kind: "failed",
      reason: expect.stringMatching(/^the summary call failed: .*prompt is too long: \d+ tokens > 1500 maximum$/),
    });
    expect(small.requests).toHaveLength(1);
    expect(huge).toEqual(before);
  });

  it("has nothing to summarise in a history of one message", async () => {
    const messages: MessageParam[] = [{ role: "user", content: "hi" }];
    expect(await compactHistory(sendStreamed(new ScriptedModel().client()), messages, options())).toEqual({
      kind: "failed",
      reason: "there is nothing to summarise yet",
    });
  });

  it("turns any valid history into one the API accepts, through the real SDK and the scripted model (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        steps,
        fc.integer({ min: 0, max: 3000 }),
        fc.integer({ min: 1200, max: 20_000 }),
        async (history, tail, request) => {
          const messages = historyFrom(history, NEEDLE);
          const model = new ScriptedModel({ brain: sessionBrain });
          const parts = options({ tailTokens: tail, requestTokens: request });
          const outcome = await compactHistory(sendStreamed(model.client()), messages, parts);
          expect(historyProblems(messages)).toEqual([]);
          if (outcome.kind === "compacted") expect(JSON.stringify(messages)).toContain(NEEDLE);
        },
      ),
      { numRuns: 60 },
    );
  });
});
