import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { defineTool, readFileTool, toolMap } from "@harness/s02-tool-dispatch";
import {
  isValidHistory,
  reply,
  SCRIPTED_MODEL_ID,
  ScriptedModel,
  text,
  textReply,
  toolOutput,
  toolUse,
} from "@harness/shared";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { agentLoop } from "../src/agent-loop.ts";
import { readTrace } from "../src/read-trace.ts";
import type { ErrorRecord, IterationRecord, ResultRecord } from "../src/trace-record.ts";
import { TraceWriter } from "../src/trace-writer.ts";
import { scriptedTrace } from "./scripted-trace.ts";

const iterations = (records: { type: string }[]) => records.filter((r) => r.type === "iteration") as IterationRecord[];

/**
 * A tool that echoes its label once it may finish: at once, when `after` names a call that has
 * finished, or when interrupted. It orders concurrent calls without depending on timing.
 */
const finished = new Map<string, () => void>();
const gates = new Map<string, Promise<void>>();
const gate = (label: string) => {
  if (!gates.has(label)) gates.set(label, new Promise<void>((resolve) => finished.set(label, resolve)));
  return gates.get(label)!;
};
const waitTool = defineTool({
  name: "wait",
  description: "Echo the label, after another call has finished.",
  schema: z.object({ label: z.string(), after: z.string().optional(), forever: z.boolean().optional() }),
  concurrencySafe: true,
  run: async ({ label, after, forever }, { signal }) => {
    const interrupted = new Promise<void>((resolve) => signal?.addEventListener("abort", () => resolve()));
    if (forever) await interrupted;
    else if (after) await Promise.race([gate(after), interrupted]);
    // opened after this call's result is recorded (timers run once the microtasks are done)
    setImmediate(() => {
      gate(label);
      finished.get(label)?.();
    });
    return toolOutput(signal?.aborted ? `${label} interrupted` : `finished ${label}`);
  },
});

describe("agentLoop with a trace", () => {
  it("writes one iteration record per model call, in order, then the result", async () => {
    const { trace, messages, results } = await scriptedTrace([
      reply([text("Reading."), toolUse("read_file", { path: "notes.txt" })]),
      reply([toolUse("read_file", { path: "missing.txt" })]),
      textReply("It says alpha and beta."),
    ]);
    expect(trace.records.map((r) => r.type)).toEqual(["iteration", "iteration", "iteration", "result"]);
    expect(iterations(trace.records).map((r) => [r.run, r.turn])).toEqual([
      [0, 1],
      [0, 2],
      [0, 3],
    ]);
    expect(trace.records.every((r) => r.traceId === "test-trace")).toBe(true);
    expect(trace.records.at(-1)).toMatchObject({ type: "result", run: 0, result: results[0] });
    expect(results[0]).toMatchObject({ stopReason: "final_answer", turns: 3, toolCalls: 2 });
    expect(trace.skippedLines).toBe(0);
    expect(isValidHistory(messages)).toBe(true);
  });

  it("records each request exactly as the model received it, full history included", async () => {
    const { trace, model, messages } = await scriptedTrace([
      reply([toolUse("read_file", { path: "notes.txt" })]),
      reply([toolUse("read_file", { path: "notes.txt", offset: 2 })]),
      textReply("Done."),
    ]);
    const records = iterations(trace.records);
    expect(records).toHaveLength(model.requests.length);
    records.forEach((record, i) => {
      const { model: id, max_tokens, system, tools, messages: sent } = model.requests[i].body;
      expect(record.request).toEqual({ model: id, max_tokens, system, tools, messages: sent });
    });
    expect(records[0].request.messages).toEqual([{ role: "user", content: "Read notes.txt" }]);
    // the second request carries the first turn and its tool_result
    const firstCall = records[0].response.content.find((b) => b.type === "tool_use");
    expect(records[1].request.messages).toHaveLength(3);
    expect(records[1].request.messages[1]).toEqual({ role: "assistant", content: records[0].response.content });
    expect(records[1].request.messages[2]).toEqual({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: firstCall?.id, content: "1\talpha\n2\tbeta", is_error: false }],
    });
    expect(records[2].request.messages).toHaveLength(5);
    expect(records[0].request.tools.map((t) => t.name)).toEqual([
      "bash",
      "read_file",
      "write_file",
      "edit_file",
      "glob",
      "grep",
    ]);
    expect(isValidHistory(messages)).toBe(true);
  });

  it("records the response: content, provider stop reason, usage, and the model that answered", async () => {
    const { trace, messages } = await scriptedTrace([
      reply([text("Let me look."), toolUse("read_file", { path: "notes.txt" })], {
        usage: { input_tokens: 120, output_tokens: 30 },
      }),
      textReply("Alpha and beta.", { usage: { input_tokens: 200, output_tokens: 7 } }),
    ]);
    const [first, second] = iterations(trace.records);
    expect(first.request.model).toBe("test-model");
    expect(first.response).toMatchObject({
      id: "msg_scripted_0001",
      model: SCRIPTED_MODEL_ID, // not the id the request named: a trace never passes it off as Claude
      stopReason: "tool_use",
      usage: { inputTokens: 120, outputTokens: 30 },
    });
    expect(first.response.content).toEqual([
      { type: "text", text: "Let me look." },
      { type: "tool_use", id: "toolu_scripted_0001_1", name: "read_file", input: { path: "notes.txt" } },
    ]);
    expect(second.response).toMatchObject({
      stopReason: "end_turn",
      usage: { inputTokens: 200, outputTokens: 7 },
      content: [{ type: "text", text: "Alpha and beta." }],
    });
    const result = trace.records.at(-1) as ResultRecord;
    expect(result.result.usage).toEqual({ inputTokens: 320, outputTokens: 37 });
    expect(isValidHistory(messages)).toBe(true);
  });

  it("records each tool call with its input, result, error flag and duration", async () => {
    const { trace, messages } = await scriptedTrace([
      reply([toolUse("read_file", { path: "notes.txt" }), toolUse("read_file", { path: "nope.txt" })]),
      textReply("One file was missing."),
    ]);
    const [first, second] = iterations(trace.records);
    expect(first.toolCalls).toEqual([
      {
        id: "toolu_scripted_0001_0",
        name: "read_file",
        input: { path: "notes.txt" },
        result: "1\talpha\n2\tbeta",
        isError: false,
        startOffsetMs: expect.any(Number),
        durationMs: expect.any(Number),
      },
      {
        id: "toolu_scripted_0001_1",
        name: "read_file",
        input: { path: "nope.txt" },
        result: "Error [not_found]: nope.txt does not exist.",
        isError: true,
        startOffsetMs: expect.any(Number),
        durationMs: expect.any(Number),
      },
    ]);
    for (const call of first.toolCalls) {
      expect(call.durationMs).toBeGreaterThanOrEqual(0);
      expect(call.startOffsetMs).toBeGreaterThanOrEqual(first.timings.modelMs);
    }
    expect(second.toolCalls).toEqual([]);
    expect(isValidHistory(messages)).toBe(true);
  });

  it("records timings: first token within the model call, tool time spanning the calls", async () => {
    const { trace, messages } = await scriptedTrace([
      reply([toolUse("read_file", { path: "notes.txt" })]),
      textReply("Done."),
    ]);
    const [first, second] = iterations(trace.records);
    for (const { timings } of [first, second]) {
      expect(timings.ttftMs).toBeGreaterThanOrEqual(0);
      expect(timings.ttftMs).toBeLessThanOrEqual(timings.modelMs);
      expect(timings.toolMs).toBeGreaterThanOrEqual(0);
    }
    expect(first.timings.toolMs).toBeGreaterThanOrEqual(first.toolCalls[0].durationMs);
    expect(second.timings.toolMs).toBe(0);
    expect(Number.isNaN(Date.parse(first.startedAt))).toBe(false);
    expect(Date.parse(second.startedAt)).toBeGreaterThanOrEqual(Date.parse(first.startedAt));
    expect(isValidHistory(messages)).toBe(true);
  });

  it("lists concurrent tool calls in tool_use order, whatever order they finish in", async () => {
    const { trace, messages } = await scriptedTrace(
      [
        reply([toolUse("wait", { label: "second", after: "first" }), toolUse("wait", { label: "first" })]),
        textReply("Both done."),
      ],
      { options: { tools: toolMap([waitTool]) } },
    );
    const [iteration] = iterations(trace.records);
    expect(iteration.toolCalls.map((c) => c.result)).toEqual(["finished second", "finished first"]);
    const [second, first] = iteration.toolCalls;
    // they ran at once, and the one listed first finished last
    expect(first.startOffsetMs + first.durationMs).toBeLessThanOrEqual(second.startOffsetMs + second.durationMs);
    expect(iteration.timings.toolMs).toBeGreaterThanOrEqual(second.durationMs);
    expect(isValidHistory(messages)).toBe(true);
  });

  it("writes an error record, not a result, when the stream fails; the error still reaches the caller", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "s03-loop-"));
    const model = new ScriptedModel({
      script: [reply([toolUse("read_file", { path: "x" })]), { kind: "cut", afterEvents: 3 }],
    });
    const writer = new TraceWriter("cut", join(cwd, ".traces"), []);
    const messages: MessageParam[] = [{ role: "user", content: "go" }];
    await expect(agentLoop(model.client(), messages, { model: "m", cwd, trace: writer })).rejects.toThrow();
    const { records } = readTrace(writer.path);
    expect(records.map((r) => r.type)).toEqual(["iteration", "error"]);
    expect(records[1]).toMatchObject({ type: "error", traceId: "cut", run: 0, turn: 2 });
    const error = records[1] as ErrorRecord;
    expect(error.message).not.toBe("");
    // the failed request is kept whole, as sent
    expect(error.request.messages).toEqual(model.requests[1].body.messages);
    expect(error.request.messages).toHaveLength(3);
    expect(Number.isNaN(Date.parse((records[1] as ErrorRecord).at))).toBe(false);
    expect(isValidHistory(messages)).toBe(true);
  });

  it("writes the iteration and an aborted result when the run is interrupted during its tools", async () => {
    const controller = new AbortController();
    const tools = toolMap([waitTool]);
    const model = new ScriptedModel({ script: [reply([toolUse("wait", { label: "long", forever: true })])] });
    const cwd = mkdtempSync(join(tmpdir(), "s03-loop-"));
    const writer = new TraceWriter("abort", join(cwd, ".traces"), []);
    const messages: MessageParam[] = [{ role: "user", content: "wait" }];
    const result = await agentLoop(model.client(), messages, {
      model: "m",
      cwd,
      tools,
      signal: controller.signal,
      trace: writer,
      observer: { toolCall: () => setImmediate(() => controller.abort()) },
    });
    expect(result).toMatchObject({ stopReason: "aborted", turns: 1, toolCalls: 1 });
    const { records } = readTrace(writer.path);
    expect(records.map((r) => r.type)).toEqual(["iteration", "result"]);
    expect((records[0] as IterationRecord).toolCalls[0].result).toBe("long interrupted");
    expect((records[1] as ResultRecord).result).toEqual(result);
    expect(isValidHistory(messages)).toBe(true);
  });

  it("records the last turn's tool calls when the turn budget runs out", async () => {
    const { trace, results, messages } = await scriptedTrace([reply([toolUse("read_file", { path: "notes.txt" })])], {
      options: { maxTurns: 1 },
    });
    expect(results[0]).toMatchObject({ stopReason: "max_turns", turns: 1, toolCalls: 1 });
    expect(trace.records.map((r) => r.type)).toEqual(["iteration", "result"]);
    expect((trace.records[0] as IterationRecord).toolCalls).toHaveLength(1);
    expect(isValidHistory(messages)).toBe(true);
  });

  it("records a turn cut by max_tokens without running its tool, and answers the call as not run", async () => {
    const { trace, results, messages } = await scriptedTrace([
      reply([text("Partial"), toolUse("read_file", { path: "notes.txt" })], { stopReason: "max_tokens" }),
    ]);
    expect(results[0]).toMatchObject({ stopReason: "max_tokens", toolCalls: 0 });
    const [only] = iterations(trace.records);
    expect(only.response.stopReason).toBe("max_tokens");
    expect(only.toolCalls).toEqual([]);
    expect(trace.records.at(-1)?.type).toBe("result");
    expect(messages.at(-1)).toMatchObject({ role: "user", content: [{ type: "tool_result", is_error: true }] });
    expect(isValidHistory(messages)).toBe(true);
  });

  it("records a refused turn without running its tool", async () => {
    const { trace, results, messages } = await scriptedTrace([
      reply([text("I won't."), toolUse("bash", { command: "rm -rf /" })], { stopReason: "refusal" }),
    ]);
    expect(results[0]).toMatchObject({ stopReason: "final_answer", providerStopReason: "refusal", toolCalls: 0 });
    expect(trace.records.map((r) => r.type)).toEqual(["iteration", "result"]);
    expect((trace.records[0] as IterationRecord).toolCalls).toEqual([]);
    expect(isValidHistory(messages)).toBe(true);
  });

  it("records a pause_turn continuation with the request as it was sent, not as the merge left it", async () => {
    const { trace, messages } = await scriptedTrace([
      reply([text("Part one.")], { stopReason: "pause_turn" }),
      textReply("Part two."),
    ]);
    const [paused, resumed] = iterations(trace.records);
    expect(paused.response.stopReason).toBe("pause_turn");
    expect(resumed.request.messages).toEqual([
      { role: "user", content: "Read notes.txt" },
      { role: "assistant", content: [{ type: "text", text: "Part one." }] },
    ]);
    // the history merged the continuation into that assistant message afterwards
    expect(messages.at(-1)).toEqual({
      role: "assistant",
      content: [
        { type: "text", text: "Part one." },
        { type: "text", text: "Part two." },
      ],
    });
    expect(isValidHistory(messages)).toBe(true);
  });

  it("numbers the runs of a session and records each run's full history", async () => {
    const { trace, results, messages } = await scriptedTrace(
      [textReply("First answer."), textReply("Second answer.")],
      {
        prompts: ["first question", "second question"],
      },
    );
    expect(trace.records.map((r) => [r.type, r.run])).toEqual([
      ["iteration", 0],
      ["result", 0],
      ["iteration", 1],
      ["result", 1],
    ]);
    const second = trace.records[2] as IterationRecord;
    expect(second.turn).toBe(1);
    expect(second.request.messages).toEqual([
      { role: "user", content: "first question" },
      { role: "assistant", content: [{ type: "text", text: "First answer." }] },
      { role: "user", content: "second question" },
    ]);
    expect(results.map((r) => r.finalText)).toEqual(["First answer.", "Second answer."]);
    expect(isValidHistory(messages)).toBe(true);
  });

  it("sends the same requests and returns the same result with or without a trace", async () => {
    const script = () => [reply([toolUse("read_file", { path: "notes.txt" })]), textReply("Done.")];
    const traced = await scriptedTrace(script());
    const plain = new ScriptedModel({ script: script() });
    const messages: MessageParam[] = [{ role: "user", content: "Read notes.txt" }];
    const result = await agentLoop(plain.client(), messages, { model: "test-model", cwd: traced.cwd });
    expect(plain.requests.map((r) => r.body)).toEqual(traced.model.requests.map((r) => r.body));
    expect(result).toEqual(traced.results[0]);
    expect(messages).toEqual(traced.messages);
    expect(isValidHistory(messages)).toBe(true);
  });

  it("writes nothing without a trace", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "s03-loop-"));
    const model = new ScriptedModel({ script: [textReply("Hi.")] });
    const messages: MessageParam[] = [{ role: "user", content: "hi" }];
    const result = await agentLoop(model.client(), messages, { model: "m", cwd });
    expect(result.stopReason).toBe("final_answer");
    expect(existsSync(join(cwd, ".traces"))).toBe(false);
    expect(isValidHistory(messages)).toBe(true);
  });

  it("has each record on disk before the next model call is sent", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "s03-loop-"));
    const writer = new TraceWriter("ordered", join(cwd, ".traces"), []);
    const linesSeenAtCall: number[] = [];
    const model = new ScriptedModel({
      script: [reply([toolUse("read_file", { path: "a" })]), reply([toolUse("read_file", { path: "b" })])],
      brain: () => textReply("Done."),
    });
    const messages: MessageParam[] = [{ role: "user", content: "go" }];
    await agentLoop(model.client(), messages, {
      model: "m",
      cwd,
      trace: writer,
      tools: toolMap([readFileTool]),
      observer: {
        modelCall: () =>
          linesSeenAtCall.push(existsSync(writer.path) ? readFileSync(writer.path, "utf8").split("\n").length - 1 : 0),
      },
    });
    expect(linesSeenAtCall).toEqual([0, 1, 2]);
    expect(isValidHistory(messages)).toBe(true);
  });
});

describe("agentLoop with a traceId", () => {
  it("writes .traces/<traceId>.jsonl under cwd, one record per iteration and the result last", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "s03-traceid-"));
    const model = new ScriptedModel({ script: [reply([toolUse("glob", { pattern: "*" })]), textReply("done")] });
    const messages: MessageParam[] = [{ role: "user", content: "go" }];
    const env = process.env.HARNESS_TRACE_DIR;
    delete process.env.HARNESS_TRACE_DIR;
    try {
      await agentLoop(model.client(), messages, { model: "m", cwd, traceId: "by-id" });
    } finally {
      if (env !== undefined) process.env.HARNESS_TRACE_DIR = env;
    }
    const trace = readTrace(join(cwd, ".traces", "by-id.jsonl"));
    expect(trace.records.map((r) => r.type)).toEqual(["iteration", "iteration", "result"]);
    expect(isValidHistory(messages)).toBe(true);
  });
});
