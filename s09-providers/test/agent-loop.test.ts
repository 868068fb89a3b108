/**
 * s09's loop keeps s08's promise on every wire format: a session longer than the window runs to
 * the end and recalls a fact from its start, and a provider's "too long" refusal, in its own
 * words, costs exactly one compaction and one resend.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import type { ContextEvent } from "@harness/s08-compaction";
import { demoBrain, estimateInputTokens, ScriptedModel } from "@harness/scripted-model";
import { appendUserText, historyProblems } from "@harness/shared";
import { afterAll, describe, expect, it } from "vitest";
import { type AgentLoopOptions, agentLoop } from "../src/agent-loop.ts";
import { scriptedAdapter } from "../src/connect/create-adapter.ts";
import { WIRE_FORMATS, type WireFormat } from "../src/provider-adapter.ts";

const cwd = mkdtempSync(join(tmpdir(), "s09-loop-"));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));
// files of 151 numbered lines: about 500 tokens a read
for (let n = 1; n <= 8; n++) {
  writeFileSync(join(cwd, `part-${n}.txt`), `${Array.from({ length: 151 }, (_, i) => n * 1000 + i).join("\n")}\n`);
}

const reads = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `Read part-${from + i}.txt and summarise it`);
const isSummaryRequest = (body: { messages: MessageParam[] }) =>
  JSON.stringify(body.messages.at(-1)).includes("Summarise this conversation");

/** A REPL's worth of prompts on one history, through `format`'s adapter. */
async function session(
  format: WireFormat,
  model: ScriptedModel,
  prompts: string[],
  options: Partial<AgentLoopOptions> = {},
  messages: MessageParam[] = [],
) {
  const events: ContextEvent[] = [];
  const results = [];
  const adapter = scriptedAdapter(format, model, { maxRetries: 0 });
  for (const prompt of prompts) {
    appendUserText(messages, prompt);
    results.push(
      await agentLoop(adapter, messages, {
        model: "test-model",
        cwd,
        observer: { context: (event) => events.push(event) },
        ...options,
      }),
    );
    expect(historyProblems(messages)).toEqual([]);
  }
  return { messages, events, results };
}

describe.each(WIRE_FORMATS)("agentLoop keeps the history inside the window on %s", (format) => {
  it("runs a session longer than its window to the end and recalls a fact from its start", async () => {
    const model = new ScriptedModel({ brain: demoBrain, contextWindow: 4000 });
    const prompts = [
      "Note: the release codename is BLUE-HERON.",
      ...reads(1, 8),
      "What is the release codename you noted?",
    ];
    const { results, events } = await session(format, model, prompts, { contextWindow: 4000 });
    expect(results.map((r) => r.stopReason)).toEqual(prompts.map(() => "final_answer"));
    expect(results.at(-1)?.finalText).toBe("The release codename is BLUE-HERON.");
    expect(events.some((e) => e.kind === "compacted" && e.why === "threshold")).toBe(true);
    expect(
      model.requests.every(
        (r) =>
          r.api ===
          { anthropic: "messages", "openai-chat": "chat-completions", "openai-responses": "responses" }[format],
      ),
    ).toBe(true);
    expect(Math.max(...model.requests.map((r) => estimateInputTokens(r.body)))).toBeLessThanOrEqual(4000);
  });

  it("answers the provider's own 'too long' refusal with exactly one compaction and one resend", async () => {
    // about 3,500 tokens of history; the harness believes the window is large, the model's is 3,000
    const grown = new ScriptedModel({ brain: demoBrain });
    const { messages } = await session(format, grown, ["Note: the port is 8123.", ...reads(1, 5)], {
      compaction: "off",
    });
    const model = new ScriptedModel({ brain: demoBrain, contextWindow: 3000 });
    const { results, events } = await session(format, model, ["Note: the build number is 4471."], {}, messages);
    expect(results[0]).toMatchObject({
      stopReason: "final_answer",
      turns: 1,
      finalText: "Noted: the build number is 4471.",
    });
    const requests = model.requests.map((r) => r.body);
    expect(requests.map((r) => (isSummaryRequest(r) ? "summary" : "turn"))).toEqual(["turn", "summary", "turn"]);
    expect(requests[2].messages.at(-1)).toEqual(requests[0].messages.at(-1));
    expect(estimateInputTokens(requests[2])).toBeLessThanOrEqual(3000);
    expect(events.filter((e) => e.kind === "compacted")).toEqual([expect.objectContaining({ why: "too_long" })]);
  });
});
