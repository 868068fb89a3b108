/**
 * s08's loop with its window, as main.ts wires them: one `ContextWindow` for the whole session
 * (its `fit` the loop's seam, its `send` the model call, its `observe` a listener), on the
 * scripted model whose context window is set as small as the harness's. The model's replies are
 * scripts, or `sessionBrain` (written out in this folder) for the long sessions. A session far
 * longer than the window runs to the end, old results are cleared before anything is summarised,
 * a fact stated first is recalled last, "prompt is too long" costs exactly one compaction and one
 * resend, what cannot fit stops with `context_overflow`, and the server's compaction block goes
 * back exactly as it came.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BadRequestError } from "@anthropic-ai/sdk";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { sendStreamed } from "@harness/s03-streaming";
import { fanOut } from "@harness/s04-tracing";
import { type LoopHooks, loopHooks } from "@harness/s06-hooks";
import { historyOf, openSession, readTranscript } from "@harness/s07-sessions";
import {
  COMPACT_BETA,
  CONTEXT_MANAGEMENT_BETA,
  estimateInputTokens,
  type RecordedRequest,
  reply,
  ScriptedModel,
  type ScriptStep,
  textReply,
  toolUse,
} from "@harness/scripted-model";
import { appendUserText, historyProblems, type LoopEvent } from "@harness/shared";
import { afterAll, describe, expect, it } from "vitest";
import { agentLoop } from "../src/agent-loop.ts";
import { CLEARED_RESULT } from "../src/compaction/clear-old-results.ts";
import { SUMMARY_OPENING } from "../src/compaction/compact-history.ts";
import { SUMMARY_PROMPT } from "../src/compaction/request-summary.ts";
import { SERVER_BETAS, withServerBetas } from "../src/compaction/server-context-management.ts";
import { historySinceBoundary } from "../src/compaction/transcript-boundary.ts";
import { type CompactionMode, type ContextChange, type ContextEvent, ContextWindow } from "../src/context-window.ts";
import { boundaryWriter } from "../src/flags.ts";
import { historyFrom, tools } from "./histories.ts";
import { sessionBrain } from "./session-brain.ts";

const cwd = mkdtempSync(join(tmpdir(), "s08-loop-"));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));
// files of 151 numbered lines: about 500 tokens a read
for (let n = 1; n <= 12; n++) {
  writeFileSync(join(cwd, `part-${n}.txt`), `${Array.from({ length: 151 }, (_, i) => n * 1000 + i).join("\n")}\n`);
}

interface SessionSettings {
  contextWindow?: number;
  mode?: CompactionMode;
  /** Another listener beside the context's (a transcript's). */
  listen?: (event: { type: string }) => void;
  /** The hooks' seam (main.ts always gives it: the prompt is told, and written, once they let it through). */
  hooks?: LoopHooks;
}

/**
 * One window for the whole session, as main.ts builds it, and a REPL's worth of prompts run on one
 * history through it: every run's result, the context's changes, and the window.
 */
async function session(model: ScriptedModel, prompts: string[], settings: SessionSettings = {}) {
  const messages: MessageParam[] = [];
  const changes: ContextChange[] = [];
  const heard = (event: { type: string }) => {
    if (event.type === "context") changes.push((event as ContextEvent).change);
  };
  const emit = fanOut(heard, settings.listen);
  const client = model.client({ maxRetries: 0 });
  const window = new ContextWindow({
    send: sendStreamed(settings.mode === "server" ? withServerBetas(client) : client),
    model: "claude-test",
    mode: settings.mode,
    contextWindow: settings.contextWindow,
    emit,
  });
  const results = [];
  for (const prompt of prompts) {
    appendUserText(messages, prompt);
    const options = { model: "claude-test", cwd, window, emit: fanOut(emit, window.observe), hooks: settings.hooks };
    results.push(await agentLoop(window.send, messages, options));
    expect(historyProblems(messages)).toEqual([]);
  }
  return { messages, changes, results, window };
}

const reads = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `Read part-${from + i}.txt and summarise it`);
const kinds = (changes: ContextChange[]) => changes.filter((c) => c.kind !== "measured").map((c) => c.kind);
const isSummaryRequest = (request: RecordedRequest) =>
  JSON.stringify(request.body.messages.at(-1)).includes(JSON.stringify(SUMMARY_PROMPT).slice(1, 40));
const readCall = (path: string) => reply([toolUse("read_file", { path })]);

describe("agentLoop keeps a long session inside the window", () => {
  it("runs a session far longer than its window to the end: clears first, summarises when it must, recalls a fact from the start", async () => {
    const model = new ScriptedModel({ brain: sessionBrain, contextWindow: 4000 });
    const prompts = [
      "Note: the release codename is BLUE-HERON.",
      ...reads(1, 12),
      "What is the release codename you noted?",
    ];
    const { results, changes } = await session(model, prompts, { contextWindow: 4000 });
    expect(results.map((r) => r.stopReason)).toEqual(prompts.map(() => "final_answer"));
    expect(results.at(-1)?.finalText).toBe("The release codename is BLUE-HERON.");
    // twelve reads of about 500 tokens each: three windows' worth, and not one request refused
    const sent = model.requests.map((r) => estimateInputTokens(r.body));
    expect(Math.max(...sent)).toBeLessThanOrEqual(4000);
    expect(changes.filter((c) => c.kind === "compacted").every((c) => c.why === "threshold")).toBe(true);
    // the cheap step comes first: results were cleared before the first summary
    const order = kinds(changes);
    expect(order.indexOf("cleared")).toBeGreaterThanOrEqual(0);
    expect(order.indexOf("cleared")).toBeLessThan(order.indexOf("compacted"));
    expect(order.filter((k) => k === "compacted").length).toBeGreaterThanOrEqual(2);
  });

  it("never summarises the work in flight: results the model has not read yet stay, so it does not ask again", async () => {
    // one read fills this window: summarised with its call, it would be read again and again until max_turns
    const model = new ScriptedModel({
      script: [
        readCall("part-1.txt"),
        textReply("## Task\n- read part-1.txt"), // asked to summarise what came before the read: the prompt
        textReply("part-1.txt is 151 lines long."),
      ],
    });
    const { results, messages } = await session(model, ["Read part-1.txt and summarise it"], {
      contextWindow: 1500,
    });
    expect(results[0]).toMatchObject({ stopReason: "final_answer", turns: 2, toolCalls: 1 });
    const [, summary, answered] = model.requests;
    expect(isSummaryRequest(summary)).toBe(true);
    expect(JSON.stringify(summary.body.messages)).not.toContain("tool_use"); // the read and its result stay out
    expect(JSON.stringify(answered.body.messages)).toContain("1150"); // the file's last line, read once, sent whole
    expect(JSON.stringify(messages)).toContain("1150");
  });

  it("clears old tool results above the first threshold without asking for a summary", async () => {
    const script = [1, 2, 3, 4, 5].flatMap((n) => [readCall(`part-${n}.txt`), textReply(`part-${n}.txt read.`)]);
    const model = new ScriptedModel({ script });
    const { messages, changes } = await session(model, reads(1, 5), { contextWindow: 6000 });
    expect(model.pending).toBe(0);
    expect(kinds(changes).length).toBeGreaterThan(0);
    expect(new Set(kinds(changes))).toEqual(new Set(["cleared"]));
    expect(model.requests.some(isSummaryRequest)).toBe(false);
    expect(JSON.stringify(messages)).toContain(CLEARED_RESULT);
  });

  it("answers the API's 'prompt is too long' with exactly one compaction and one resend", async () => {
    // a history of about 3,500 tokens; the harness believes the window is large, the model's is 3,000
    const messages = historyFrom([tools(1, 2000), tools(1, 2000), tools(1, 2000), tools(1, 2000)], "Note: port 8123.");
    appendUserText(messages, "Note: the build number is 4471.");
    const model = new ScriptedModel({
      // the first request is refused before it takes a step: the summary, then the answer to the resend
      script: [textReply("## Task\n- the port is 8123"), textReply("Noted: the build number is 4471.")],
      contextWindow: 3000,
    });
    const events: { type: string }[] = [];
    const record = (event: { type: string }) => events.push(event);
    const window = new ContextWindow({
      send: sendStreamed(model.client({ maxRetries: 0 })),
      model: "claude-test",
      emit: record,
    });
    const options = { model: "claude-test", cwd, window, emit: fanOut(record, window.observe) };
    const result = await agentLoop(window.send, messages, options);
    expect(result).toMatchObject({
      stopReason: "final_answer",
      turns: 1,
      finalText: "Noted: the build number is 4471.",
    });
    const requests = model.requests.map((r) => (isSummaryRequest(r) ? "summary" : "turn"));
    // refused, the summary, the same request again, compacted
    expect(requests).toEqual(["turn", "summary", "turn"]);
    const [refused, , resent] = model.requests.map((r) => r.body);
    expect(resent.messages.at(-1)).toEqual(refused.messages.at(-1));
    expect(estimateInputTokens(refused)).toBeGreaterThan(3000);
    expect(estimateInputTokens(resent)).toBeLessThanOrEqual(3000);
    // told as it happened: the call, its refusal, the compaction, the same turn called again, its answer
    const told = events.flatMap((e) => {
      if (e.type === "context") return [(e as ContextEvent).change.kind];
      if (e.type === "model_call") return [`model_call ${(e as LoopEvent & { type: "model_call" }).turnNumber}`];
      return ["model_error", "turn", "end"].includes(e.type) ? [e.type] : [];
    });
    expect(told).toEqual([
      "model_call 1",
      "model_error",
      "window", // the refusal named the model's 3,000 tokens: taken on, and said
      "compacted",
      "model_call 1",
      "turn",
      "measured",
      "end",
    ]);
    expect(events.find((e) => e.type === "context" && (e as ContextEvent).change.kind === "compacted")).toMatchObject({
      change: { why: "too_long" },
    });
    expect(historyProblems(messages)).toEqual([]);
  });

  it("stops with context_overflow when the compacted history is refused too, the history valid", async () => {
    // the system prompt alone is over the model's 900 tokens; the summary request (its own system) is not
    const model = new ScriptedModel({ script: [textReply("## Task\n- a summary")], contextWindow: 900 });
    const messages: MessageParam[] = [
      { role: "user", content: "x".repeat(2000) },
      { role: "assistant", content: "ok" },
      { role: "user", content: "go on" },
    ];
    const window = new ContextWindow({ send: sendStreamed(model.client({ maxRetries: 0 })), model: "claude-test" });
    const loop = { model: "claude-test", cwd, tools: new Map(), system: "s".repeat(4000), window };
    const result = await agentLoop(window.send, messages, { ...loop, emit: window.observe });
    expect(result).toMatchObject({ stopReason: "context_overflow", turns: 0 });
    // refused, summarised, refused again: stopped, not summarised a second time
    expect(model.requests.map((r) => (isSummaryRequest(r) ? "summary" : "turn"))).toEqual(["turn", "summary", "turn"]);
    expect(historyProblems(messages)).toEqual([]);
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
    const changes: ContextChange[] = [];
    const emit = (event: { type: string }) => {
      if (event.type === "context") changes.push((event as ContextEvent).change);
    };
    const window = new ContextWindow({
      send: sendStreamed(model.client({ maxRetries: 0 })),
      model: "claude-test",
      contextWindow: 3000,
      emit,
    });
    const result = await agentLoop(window.send, messages, {
      model: "claude-test",
      cwd,
      window,
      emit: fanOut(emit, window.observe),
    });
    expect(result).toMatchObject({ stopReason: "context_overflow", turns: 2 });
    expect(changes.flatMap((c) => (c.kind === "compaction_failed" ? [c.failures] : []))).toEqual([1, 2, 3]);
    expect(historyProblems(messages)).toEqual([]);
  });

  it("counts failed compactions per run: the window lives for the session, the next prompt starts again from none", async () => {
    const failed: ScriptStep = { kind: "http_error", status: 400, message: "summaries are off today" };
    // over the summary threshold at each prompt: a summary fails, the call goes on, and is answered
    const model = new ScriptedModel({ script: [failed, textReply("ok"), failed, textReply("ok")] });
    const messages: MessageParam[] = [];
    for (let i = 0; i < 6; i++) {
      messages.push({ role: "user", content: `step ${i} ${"z".repeat(1200)}` }, { role: "assistant", content: "ok" });
    }
    const changes: ContextChange[] = [];
    const emit = (event: { type: string }) => {
      if (event.type === "context") changes.push((event as ContextEvent).change);
    };
    const window = new ContextWindow({
      send: sendStreamed(model.client({ maxRetries: 0 })),
      model: "claude-test",
      contextWindow: 3000,
      emit,
    });
    const results = [];
    for (const prompt of ["go on", "and again"]) {
      appendUserText(messages, prompt);
      results.push(
        await agentLoop(window.send, messages, {
          model: "claude-test",
          cwd,
          window,
          emit: fanOut(emit, window.observe),
        }),
      );
    }
    expect(results.map((r) => r.stopReason)).toEqual(["final_answer", "final_answer"]);
    expect(changes.flatMap((c) => (c.kind === "compaction_failed" ? [c.failures] : []))).toEqual([1, 1]);
    expect(model.pending).toBe(0);
  });

  it("with compaction off, lets the API's refusal through as it is", async () => {
    const model = new ScriptedModel({ script: [textReply("never")], contextWindow: 500 });
    const messages: MessageParam[] = [{ role: "user", content: "x".repeat(4000) }];
    const window = new ContextWindow({ send: sendStreamed(model.client({ maxRetries: 0 })), model: "m", mode: "off" });
    const error = await agentLoop(window.send, messages, { model: "m", cwd, window }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as Error).message).toMatch(/prompt is too long: \d+ tokens > 500 maximum/);
    expect(model.requests).toHaveLength(1);
  });

  it("writes each compaction to the transcript as a boundary: read back, it is the history the loop went on with", async () => {
    const home = mkdtempSync(join(tmpdir(), "s08-home-"));
    const open = openSession({ kind: "new" }, { cwd, model: "claude-test", secrets: [], env: { HARNESS_HOME: home } });
    try {
      const model = new ScriptedModel({ brain: sessionBrain, contextWindow: 4000 });
      const prompts = ["Note: the release codename is BLUE-HERON.", ...reads(1, 8)];
      // the transcript listens to the loop's messages, and to the window's compactions (main.ts's listeners)
      const listen = fanOut(open.writer.record, boundaryWriter(open));
      const session_ = { sessionId: open.writer.sessionId, cwd };
      const hooks = loopHooks({ hooks: [], session: session_, runProjectHooks: false, notice: () => {} });
      const { messages, changes } = await session(model, prompts, { contextWindow: 4000, listen, hooks });
      const compactions = changes.filter((c) => c.kind === "compacted").length;
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
      expect(JSON.stringify(loaded[0])).toContain("Note: the release codename is BLUE-HERON.");
      expect(historyOf(records).length).toBeGreaterThan(loaded.length);
    } finally {
      open.close();
      rmSync(home, { recursive: true, force: true });
    }
  });

  it("asks the summary with the summary prompt and no tool choice", async () => {
    const model = new ScriptedModel({ brain: sessionBrain, contextWindow: 4000 });
    await session(model, reads(1, 7), { contextWindow: 4000 });
    const summary = model.requests.find(isSummaryRequest);
    expect(summary?.body.tool_choice).toEqual({ type: "none" });
    expect(JSON.stringify(summary?.body.messages.at(-1))).toContain(JSON.stringify(SUMMARY_PROMPT).slice(1, -1));
  });
});

describe("agentLoop with the server's context management", () => {
  it("sends the setting with its betas' header, and sends the compaction block back exactly as it came", async () => {
    const model = new ScriptedModel({ brain: sessionBrain });
    const { results, messages, changes } = await session(
      model,
      ["Note: the owner is Ada.", ...reads(1, 6), "What is the owner you noted?"],
      { mode: "server", contextWindow: 4000 },
    );
    expect(model.requests.every((r) => r.headers["anthropic-beta"] === SERVER_BETAS.join(","))).toBe(true);
    expect(SERVER_BETAS).toEqual([CONTEXT_MANAGEMENT_BETA, COMPACT_BETA]);
    expect(model.requests[0].body).toMatchObject({
      context_management: { edits: [{ type: "clear_tool_uses_20250919" }, { type: "compact_20260112" }] },
    });
    // the client summarised nothing itself, and said when the server did
    expect(model.requests.some(isSummaryRequest)).toBe(false);
    expect(kinds(changes)).toContain("server_compacted");
    expect(kinds(changes)).not.toContain("compacted");
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
    // the model, reading the server's summary, still knows the note
    expect(results.at(-1)?.finalText).toBe("The owner is Ada.");
  });
});
