/**
 * s09's loop keeps s08's promise on every wire format, the adapter behind s08's window as main.ts
 * puts it (the window sends through `adapter.streamTurn` and reads refusals with
 * `adapter.promptTooLong`): a session longer than the window runs to the end and recalls a fact
 * from its start, and a provider's "too long" refusal, in its own words, costs exactly one
 * compaction and one resend. The model's replies are scripts, or s08's `sessionBrain` (written out
 * in s08's tests) for the long session.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { fanOut } from "@harness/s04-tracing";
import { type ContextChange, type ContextEvent, ContextWindow, SUMMARY_PROMPT } from "@harness/s08-compaction";
import { estimateInputTokens, type RecordedRequest, ScriptedModel, textReply } from "@harness/scripted-model";
import { appendUserText, historyProblems } from "@harness/shared";
import { afterAll, describe, expect, it } from "vitest";
import { historyFrom, tools } from "../../s08-compaction/test/histories.ts";
import { sessionBrain } from "../../s08-compaction/test/session-brain.ts";
import { agentLoop } from "../src/agent-loop.ts";
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
const isSummaryRequest = (request: RecordedRequest) =>
  JSON.stringify(request.body.messages.at(-1)).includes(JSON.stringify(SUMMARY_PROMPT).slice(1, 40));
const API = { anthropic: "messages", "openai-chat": "chat-completions", "openai-responses": "responses" } as const;

/**
 * A REPL's worth of prompts on one history, through `format`'s adapter behind one window for the
 * session, as main.ts builds them: every run's result and the context's changes.
 */
async function session(
  format: WireFormat,
  model: ScriptedModel,
  prompts: string[],
  contextWindow?: number,
  messages: MessageParam[] = [],
) {
  const changes: ContextChange[] = [];
  const emit = (event: { type: string }) => {
    if (event.type === "context") changes.push((event as ContextEvent).change);
  };
  const adapter = scriptedAdapter(format, model, { maxRetries: 0 });
  const window = new ContextWindow({
    send: adapter.streamTurn,
    tooLong: adapter.promptTooLong,
    model: "test-model",
    contextWindow,
    emit,
  });
  const results = [];
  for (const prompt of prompts) {
    appendUserText(messages, prompt);
    const options = { model: "test-model", cwd, window, emit: fanOut(emit, window.observe) };
    results.push(await agentLoop(window.send, messages, options));
    expect(historyProblems(messages)).toEqual([]);
  }
  return { messages, changes, results };
}

describe.each(WIRE_FORMATS)("agentLoop keeps the history inside the window on %s", (format) => {
  it("runs a session longer than its window to the end and recalls a fact from its start", async () => {
    const model = new ScriptedModel({ brain: sessionBrain, contextWindow: 4000 });
    const prompts = [
      "Note: the release codename is BLUE-HERON.",
      ...reads(1, 8),
      "What is the release codename you noted?",
    ];
    const { results, changes } = await session(format, model, prompts, 4000);
    expect(results.map((r) => r.stopReason)).toEqual(prompts.map(() => "final_answer"));
    expect(results.at(-1)?.finalText).toBe("The release codename is BLUE-HERON.");
    expect(changes.some((c) => c.kind === "compacted" && c.why === "threshold")).toBe(true);
    expect(model.requests.every((r) => r.api === API[format])).toBe(true);
    expect(Math.max(...model.requests.map((r) => estimateInputTokens(r.body)))).toBeLessThanOrEqual(4000);
  });

  it("answers the provider's own 'too long' refusal with exactly one compaction and one resend", async () => {
    // about 3,500 tokens of history; the harness believes the window is large, the model's is 3,000
    const grown = historyFrom([tools(1, 2000), tools(1, 2000), tools(1, 2000), tools(1, 2000)], "Note: port 8123.");
    const model = new ScriptedModel({
      // the first request is refused before it takes a step: the summary, then the answer to the resend
      script: [textReply("## Task\n- the port is 8123"), textReply("Noted: the build number is 4471.")],
      contextWindow: 3000,
    });
    const { results, changes, messages } = await session(
      format,
      model,
      ["Note: the build number is 4471."],
      undefined,
      grown,
    );
    expect(results[0]).toMatchObject({
      stopReason: "final_answer",
      turns: 1,
      finalText: "Noted: the build number is 4471.",
    });
    expect(model.requests.map((r) => (isSummaryRequest(r) ? "summary" : "turn"))).toEqual(["turn", "summary", "turn"]);
    const [refused, , resent] = model.requests.map((r) => r.body);
    expect(resent.messages.at(-1)).toEqual(refused.messages.at(-1));
    expect(estimateInputTokens(resent)).toBeLessThanOrEqual(3000);
    expect(changes.filter((c) => c.kind === "compacted")).toEqual([expect.objectContaining({ why: "too_long" })]);
    expect(historyProblems(messages)).toEqual([]);
  });
});
