/**
 * s08's loop on the scripted model, whose context window is set as small as the harness's: a
 * session far longer than the window runs to the end, old results are cleared before anything is
 * summarised, a fact stated first is recalled last, "prompt is too long" costs exactly one
 * compaction and one resend, what cannot fit stops with `context_overflow`, and the server's
 * compaction block goes back exactly as it came.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BadRequestError } from "@anthropic-ai/sdk";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { historyOf, openSession, readTranscript } from "@harness/s07-sessions";
import {
  COMPACT_BETA,
  CONTEXT_MANAGEMENT_BETA,
  demoBrain,
  estimateInputTokens,
  reply,
  ScriptedModel,
  type ScriptStep,
  textReply,
  toolUse,
} from "@harness/scripted-model";
import { appendUserText, historyProblems, isValidHistory } from "@harness/shared";
import { afterAll, describe, expect, it } from "vitest";
import { type AgentLoopOptions, agentLoop } from "../src/agent-loop.ts";
import { CLEARED_RESULT } from "../src/compaction/clear-old-results.ts";
import { SUMMARY_OPENING } from "../src/compaction/compact-history.ts";
import type { ContextEvent } from "../src/context-keeper.ts";
import { SUMMARY_PROMPT } from "../src/compaction/request-summary.ts";
import { SERVER_BETAS } from "../src/server-context-management.ts";
import { historySinceBoundary } from "../src/compaction/transcript-boundary.ts";

const cwd = mkdtempSync(join(tmpdir(), "s08-loop-"));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));
// files of 151 numbered lines: about 500 tokens a read
for (let n = 1; n <= 12; n++) {
  writeFileSync(join(cwd, `part-${n}.txt`), `${Array.from({ length: 151 }, (_, i) => n * 1000 + i).join("\n")}\n`);
}

/** A REPL's worth of prompts on one history; every run's result and the context's events. */
async function session(model: ScriptedModel, prompts: string[], options: Partial<AgentLoopOptions> = {}) {
  const messages: MessageParam[] = [];
  const events: ContextEvent[] = [];
  const results = [];
  for (const prompt of prompts) {
    appendUserText(messages, prompt);
    results.push(
      await agentLoop(model.client({ maxRetries: 0 }), messages, {
        model: "claude-test",
        cwd,
        observer: { context: (event) => events.push(event) },
        ...options,
      }),
    );
    expect(historyProblems(messages)).toEqual([]);
  }
  return { messages, events, results };
}

const reads = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `Read part-${from + i}.txt and summarise it`);
const kinds = (events: ContextEvent[]) => events.filter((e) => e.kind !== "measured").map((e) => e.kind);
const isSummaryRequest = (body: { messages: MessageParam[] }) =>
  JSON.stringify(body.messages.at(-1)).includes("Summarise this conversation");

describe("agentLoop keeps a long session inside the window", () => {
  it("runs a session far longer than its window to the end: clears first, summarises when it must, recalls a fact from the start", async () => {
    const model = new ScriptedModel({ brain: demoBrain, contextWindow: 4000 });
    const prompts = [
      "Note: the release codename is BLUE-HERON.",
      ...reads(1, 12),
      "What is the release codename you noted?",
    ];
    const { results, events } = await session(model, prompts, { contextWindow: 4000 });
    expect(results.map((r) => r.stopReason)).toEqual(prompts.map(() => "final_answer"));
    expect(results.at(-1)?.finalText).toBe("The release codename is BLUE-HERON.");
    // twelve reads of about 500 tokens each: three windows' worth, and not one request refused
    const sent = model.requests.map((r) => estimateInputTokens(r.body));
    expect(Math.max(...sent)).toBeLessThanOrEqual(4000);
    expect(
      events.filter((e) => e.kind === "compacted").every((e) => e.kind === "compacted" && e.why === "threshold"),
    ).toBe(true);
    // the cheap step comes first: results were cleared before the first summary
    const order = kinds(events);
    expect(order.indexOf("cleared")).toBeGreaterThanOrEqual(0);
    expect(order.indexOf("cleared")).toBeLessThan(order.indexOf("compacted"));
    expect(order.filter((k) => k === "compacted").length).toBeGreaterThanOrEqual(2);
  });

  it("never summarises the work in flight: results the model has not read yet stay, so it does not ask again", async () => {
    // one read fills this window: summarised with its call, it would be read again and again until max_turns
    const model = new ScriptedModel({ brain: demoBrain });
    const { results, messages } = await session(model, ["Read part-1.txt and summarise it"], { contextWindow: 1500 });
    expect(results[0]).toMatchObject({ stopReason: "final_answer", turns: 2, toolCalls: 1 });
    expect(JSON.stringify(messages)).toContain("1150"); // the file's last line, read once and kept
  });

  it("clears old tool results above the first threshold without asking for a summary", async () => {
    const model = new ScriptedModel({ brain: demoBrain });
    const { messages, events } = await session(model, reads(1, 5), { contextWindow: 6000 });
    expect(kinds(events).length).toBeGreaterThan(0);
    expect(new Set(kinds(events))).toEqual(new Set(["cleared"]));
    expect(model.requests.some((r) => isSummaryRequest(r.body))).toBe(false);
    expect(JSON.stringify(messages)).toContain(CLEARED_RESULT);
  });

  it("answers the API's 'prompt is too long' with exactly one compaction and one resend", async () => {
    // a history of about 3,500 tokens; the harness believes the window is large, the model's is 3,000
    const grown = new ScriptedModel({ brain: demoBrain });
    const { messages } = await session(grown, ["Note: the port is 8123.", ...reads(1, 5)], { compaction: "off" });
    const model = new ScriptedModel({ brain: demoBrain, contextWindow: 3000 });
    const before = 0;
    appendUserText(messages, "Note: the build number is 4471.");
    const events: ContextEvent[] = [];
    const result = await agentLoop(model.client({ maxRetries: 0 }), messages, {
      model: "claude-test",
      cwd,
      observer: { context: (event) => events.push(event) },
    });
    expect(result).toMatchObject({
      stopReason: "final_answer",
      turns: 1,
      finalText: "Noted: the build number is 4471.",
    });
    const requests = model.requests.slice(before).map((r) => r.body);
    // refused, the summary, the same request again, compacted
    expect(requests.map((r) => (isSummaryRequest(r) ? "summary" : "turn"))).toEqual(["turn", "summary", "turn"]);
    expect(requests[2].messages.at(-1)).toEqual(requests[0].messages.at(-1));
    expect(estimateInputTokens(requests[0])).toBeGreaterThan(3000);
    expect(estimateInputTokens(requests[2])).toBeLessThanOrEqual(3000);
    expect(kinds(events)).toEqual(["compacted"]);
    expect(events.find((e) => e.kind === "compacted")).toMatchObject({ why: "too_long" });
    expect(isValidHistory(messages)).toBe(true);
  });

  it("stops with context_overflow when the compacted history is refused too, the history valid", async () => {
    // nothing fits in 900 tokens: not even the tools' definitions
    const model = new ScriptedModel({
      script: [textReply("## Task\n- a summary")],
      contextWindow: 900,
      brain: () => textReply("unreachable"),
    });
    const messages: MessageParam[] = [{ role: "user", content: "x".repeat(8000) }];
    const result = await agentLoop(model.client({ maxRetries: 0 }), messages, { model: "claude-test", cwd });
    expect(result).toMatchObject({ stopReason: "context_overflow", turns: 0 });
    expect(isValidHistory(messages)).toBe(true);
  });

  it("stops with context_overflow after three compactions fail in a row, and not before", async () => {
    const failed: ScriptStep = { kind: "http_error", status: 400, message: "summaries are off today" };
    const call = (n: number) => reply([toolUse("bash", { command: `echo ${"y".repeat(1500)} ${n}` })]);
    const model = new ScriptedModel({ script: [failed, call(1), failed, call(2), failed] });
    const messages: MessageParam[] = [];
    for (let i = 0; i < 6; i++) {
      messages.push({ role: "user", content: `step ${i}` }, { role: "assistant", content: "ok ".repeat(400) });
    }
    messages.push({ role: "user", content: "go on" });
    const events: ContextEvent[] = [];
    const result = await agentLoop(model.client({ maxRetries: 0 }), messages, {
      model: "claude-test",
      cwd,
      contextWindow: 3000,
      permissionMode: "bypassPermissions",
      observer: { context: (event) => events.push(event) },
    });
    expect(result).toMatchObject({ stopReason: "context_overflow", turns: 2 });
    expect(
      events.filter((e) => e.kind === "compaction_failed").map((e) => e.kind === "compaction_failed" && e.failures),
    ).toEqual([1, 2, 3]);
    expect(isValidHistory(messages)).toBe(true);
  });

  it("with compaction off, lets the API's refusal through as it is", async () => {
    const model = new ScriptedModel({ script: [textReply("never")], contextWindow: 500 });
    const messages: MessageParam[] = [{ role: "user", content: "x".repeat(4000) }];
    const error = await agentLoop(model.client({ maxRetries: 0 }), messages, {
      model: "m",
      cwd,
      compaction: "off",
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as Error).message).toMatch(/prompt is too long: \d+ tokens > 500 maximum/);
  });

  it("writes each compaction to the transcript as a boundary: read back, it is the history the loop went on with", async () => {
    const home = mkdtempSync(join(tmpdir(), "s08-home-"));
    const open = openSession({ kind: "new" }, { cwd, model: "claude-test", env: { HARNESS_HOME: home } });
    try {
      const model = new ScriptedModel({ brain: demoBrain, contextWindow: 4000 });
      const prompts = ["Note: the release codename is BLUE-HERON.", ...reads(1, 8)];
      const { messages, events } = await session(model, prompts, { contextWindow: 4000, transcript: open.writer });
      const compactions = events.filter((e) => e.kind === "compacted").length;
      expect(compactions).toBeGreaterThanOrEqual(1);
      const { records } = readTranscript(open.writer.path);
      expect(records.filter((r) => "compaction" in r)).toHaveLength(compactions);
      const loaded = historySinceBoundary(records);
      expect(historyProblems(loaded)).toEqual([]);
      // the summary and all after it, message for message (old results cleared since then are whole on disk)
      expect(loaded).toHaveLength(messages.length);
      expect(loaded[0]).toEqual(messages[0]);
      expect(loaded.at(-1)).toEqual(messages.at(-1));
      expect(JSON.stringify(loaded[0])).toContain(SUMMARY_OPENING);
      expect(historyOf(records).length).toBeGreaterThan(loaded.length);
    } finally {
      open.close();
      rmSync(home, { recursive: true, force: true });
    }
  });

  it("asks the summary with the summary prompt and no tool choice", async () => {
    const model = new ScriptedModel({ brain: demoBrain, contextWindow: 4000 });
    await session(model, reads(1, 7), { contextWindow: 4000 });
    const summary = model.requests.find((r) => isSummaryRequest(r.body));
    expect(summary?.body.tool_choice).toEqual({ type: "none" });
    expect(JSON.stringify(summary?.body.messages.at(-1))).toContain(JSON.stringify(SUMMARY_PROMPT).slice(1, -1));
  });
});

describe("agentLoop with the server's context management", () => {
  it("sends the setting with its betas' header, and sends the compaction block back exactly as it came", async () => {
    const model = new ScriptedModel({ brain: demoBrain });
    const { results, messages } = await session(
      model,
      ["Note: the owner is Ada.", ...reads(1, 6), "What is the owner you noted?"],
      { compaction: "server", contextWindow: 4000 },
    );
    expect(model.requests.every((r) => r.headers["anthropic-beta"] === SERVER_BETAS.join(","))).toBe(true);
    expect(SERVER_BETAS).toEqual([CONTEXT_MANAGEMENT_BETA, COMPACT_BETA]);
    expect(model.requests[0].body).toMatchObject({
      context_management: { edits: [{ type: "clear_tool_uses_20250919" }, { type: "compact_20260112" }] },
    });
    // the client summarised nothing itself
    expect(model.requests.some((r) => isSummaryRequest(r.body))).toBe(false);
    // a compaction block came back from the server, and every later request carried it unchanged
    const at = model.requests.findIndex(
      (_, i) => i > 0 && JSON.stringify(model.requests[i].body.messages).includes('"type":"compaction"'),
    );
    expect(at).toBeGreaterThan(0);
    const block = (m: MessageParam[]) =>
      m
        .flatMap((x) => (typeof x.content === "string" ? [] : x.content))
        .find((b) => (b as { type: string }).type === "compaction");
    const first = JSON.stringify(block(model.requests[at].body.messages));
    expect(first).toContain('"encrypted_content"');
    for (const later of model.requests.slice(at)) expect(JSON.stringify(block(later.body.messages))).toBe(first);
    expect(JSON.stringify(block(messages))).toBe(first);
    expect(results.at(-1)?.finalText).toBe("The owner is Ada.");
  });
});
