/**
 * A compaction through the scripted model: the summary is asked of the model with the history as
 * it is, the history becomes that summary and a tail, facts stated early survive, and every way a
 * compaction can fail leaves the history as it was.
 */
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { ALL_TOOLS, toApiTool } from "@harness/s02-tool-dispatch";
import { demoBrain, ScriptedModel, textReply } from "@harness/scripted-model";
import { historyProblems } from "@harness/shared";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type CompactOptions, compactHistory, SUMMARY_OPENING } from "../src/compaction/compact-history.ts";
import { estimateTokens } from "../src/measure-context.ts";
import { SUMMARY_PROMPT, SUMMARY_RESULT_CHARS } from "../src/compaction/request-summary.ts";
import { sendTurnWith } from "../src/send-turn.ts";
import { answer, historyFrom, steps, tools } from "./histories.ts";

const options = (over: Partial<CompactOptions> = {}): CompactOptions => ({
  model: "claude-test",
  tools: ALL_TOOLS.map(toApiTool),
  maxTokens: 1024,
  tailTokens: 400,
  signal: new AbortController().signal,
  ...over,
});

const NEEDLE = "Note: the deploy key is K-7731.";

describe("compactHistory", () => {
  it("asks for the summary with the history, the tools, no tool choice and the summary prompt, then keeps a tail", async () => {
    const model = new ScriptedModel({ brain: demoBrain });
    const messages = historyFrom([tools(1, 3000), tools(2, 800), tools(1, 100)], NEEDLE);
    const before = structuredClone(messages);
    const outcome = await compactHistory(sendTurnWith(model.client()), messages, options());
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
    expect(JSON.stringify(messages[0])).toContain(SUMMARY_OPENING);
    expect(JSON.stringify(messages[0])).toContain("noted: the deploy key is K-7731.");
    expect(historyProblems(messages)).toEqual([]);
    expect(estimateTokens(messages)).toBeLessThan(estimateTokens(before));
  });

  it("passes the user's instructions to the summary request", async () => {
    const model = new ScriptedModel({ brain: demoBrain });
    const messages = historyFrom([tools(1, 500), tools(1, 500), answer]);
    await compactHistory(
      sendTurnWith(model.client()),
      messages,
      options({ instructions: "keep the line counts", tailTokens: 0 }),
    );
    expect(JSON.stringify(model.requests[0].body.messages.at(-1))).toContain(
      "Additional instructions from the user: keep the line counts",
    );
    expect(JSON.stringify(messages[0])).toContain('(Asked to \\"keep the line counts\\"');
  });

  it("keeps a fact stated early through compaction after compaction, and the model recalls it", async () => {
    const model = new ScriptedModel({ brain: demoBrain });
    const messages = historyFrom([], NEEDLE);
    for (let round = 0; round < 4; round++) {
      // the history grows between compactions: two more turns of long results
      const more = historyFrom([tools(1, 1500), tools(1, 1500)], "", `round${round}`).slice(1);
      messages.push(...more);
      expect(historyProblems(messages)).toEqual([]);
      expect((await compactHistory(sendTurnWith(model.client()), messages, options())).kind).toBe("compacted");
    }
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
    expect(await compactHistory(sendTurnWith(failing.client({ maxRetries: 0 })), messages, options())).toMatchObject({
      kind: "failed",
      reason: "the summary call failed: the API answered 400 invalid_request_error: no",
    });
    const empty = new ScriptedModel({ script: [{ kind: "reply", content: [] }] });
    expect(await compactHistory(sendTurnWith(empty.client()), messages, options())).toEqual({
      kind: "failed",
      reason: "the model returned an empty summary",
    });
    const controller = new AbortController();
    const hanging = new ScriptedModel({ script: [{ kind: "hang" }] });
    setTimeout(() => controller.abort(), 20);
    expect(
      await compactHistory(sendTurnWith(hanging.client()), messages, options({ signal: controller.signal })),
    ).toEqual({
      kind: "aborted",
    });
    const long = new ScriptedModel({ script: [textReply("x".repeat(8000))] });
    expect(await compactHistory(sendTurnWith(long.client()), messages, options())).toEqual({
      kind: "failed",
      reason: "the summary is no shorter than what it replaces",
    });
    expect(messages).toEqual(before);
  });

  it("has nothing to summarise in a history of one message", async () => {
    const messages: MessageParam[] = [{ role: "user", content: "hi" }];
    expect(await compactHistory(sendTurnWith(new ScriptedModel().client()), messages, options())).toEqual({
      kind: "failed",
      reason: "there is nothing to summarise yet",
    });
  });

  it("turns any valid history into one the API accepts, through the real SDK and the scripted model (property)", async () => {
    await fc.assert(
      fc.asyncProperty(steps, fc.integer({ min: 0, max: 3000 }), async (history, tail) => {
        const messages = historyFrom(history, NEEDLE);
        const model = new ScriptedModel({ brain: demoBrain });
        const outcome = await compactHistory(sendTurnWith(model.client()), messages, options({ tailTokens: tail }));
        expect(historyProblems(messages)).toEqual([]);
        if (outcome.kind === "compacted")
          expect(JSON.stringify(messages)).toContain("noted: the deploy key is K-7731.");
      }),
      { numRuns: 60 },
    );
  });
});
