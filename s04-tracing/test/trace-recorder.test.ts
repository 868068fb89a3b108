/**
 * The trace as a listener: s04's loop run on scripted replies, its events recorded by a
 * TraceRecorder as main.ts wires it (scripted-trace.ts), and the records read back. Then the
 * recorder fed events by hand, for what no s04 run emits.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import type { Message, MessageCreateParamsNonStreaming, MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { defineTool, readFileTool, toolMap } from "@harness/s02-tool-dispatch";
import { type AbortableStopReason as StopReason, sendStreamed } from "@harness/s03-streaming";
import {
  reply,
  SCRIPTED_MODEL_ID,
  ScriptedModel,
  type ScriptStep,
  text,
  textReply,
  toolUse,
} from "@harness/scripted-model";
import { type AgentLoopResult, AgentTurn, appendUserText, historyProblems, toolOutput } from "@harness/shared";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { agentLoop } from "../src/agent-loop.ts";
import type { ErrorRecord, IterationRecord, ResultRecord } from "../src/trace-record.ts";
import type { TracedEvent } from "../src/trace-recorder.ts";
import { type LoadedTrace, readTrace, requestOf, sentRequests } from "../src/viewer/read-trace.ts";
import { scriptedTrace, type TracedRunOptions, tempDir, testTrace, tracedRun } from "./scripted-trace.ts";

const iterations = (records: { type: string }[]) => records.filter((r) => r.type === "iteration") as IterationRecord[];

/** The request as the model received it, in the order the loop sends its fields, as JSON. */
const received = (model: ScriptedModel, i: number) => {
  const { model: id, max_tokens, system, tools, messages } = model.requests[i].body;
  return JSON.stringify({ model: id, max_tokens, system, tools, messages });
};

/** Every request of the trace, rebuilt, as JSON, with its number. */
const rebuilt = (trace: LoadedTrace) =>
  [...sentRequests(trace)].map(({ record, request }) => ({ n: record.request.n, json: JSON.stringify(request) }));

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

describe("TraceRecorder on the loop's events", () => {
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
    expect(historyProblems(messages)).toEqual([]);
  });

  it("writes the first request whole, and each later one as the messages new since the one before", async () => {
    const { trace, messages } = await scriptedTrace([
      reply([toolUse("read_file", { path: "notes.txt" })]),
      reply([toolUse("read_file", { path: "notes.txt", offset: 2 })]),
      textReply("Done."),
    ]);
    const records = iterations(trace.records);
    expect(records[0].request).toMatchObject({ n: 1, keep: 0, model: "test-model", max_tokens: 8192 });
    expect(records[0].request.base).toBeUndefined();
    expect(records[0].request.messages).toEqual([{ role: "user", content: "Read notes.txt" }]);
    expect(records[0].request.tools?.map((t) => t.name)).toEqual([
      "bash",
      "read_file",
      "write_file",
      "edit_file",
      "glob",
      "grep",
    ]);
    // the second request: the first one's message, then the first turn and its tool_result
    const firstCall = records[0].response.content.find((b) => b.type === "tool_use");
    expect(records[1].request).toEqual({
      n: 2,
      base: 1,
      keep: 1,
      model: "test-model",
      max_tokens: 8192,
      messages: [
        { role: "assistant", content: records[0].response.content },
        {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: firstCall?.id, content: "1\talpha\n2\tbeta", is_error: false }],
        },
      ],
    });
    expect(records[2].request).toMatchObject({ n: 3, base: 2, keep: 3 });
    expect(records[2].request.messages).toHaveLength(2);
    expect(historyProblems(messages)).toEqual([]);
  });

  it("rebuilds every request exactly as the model received it, byte for byte, across turns, pauses and runs", async () => {
    const { trace, model, messages } = await scriptedTrace(
      [
        reply([text("Let me look.")], { stopReason: "pause_turn" }),
        reply([text("Still looking."), toolUse("read_file", { path: "notes.txt" })]),
        reply([text("Half.")], { stopReason: "pause_turn" }),
        reply([text("More.")], { stopReason: "pause_turn" }),
        textReply("It says alpha and beta."),
        reply([toolUse("glob", { pattern: "*" })]),
        textReply("One file."),
        reply([text("Thinking.")], { stopReason: "pause_turn" }),
        textReply("Bye."),
      ],
      { prompts: ["What does notes.txt say?", "And which files are here?", "Thanks"] },
    );
    expect(model.requests).toHaveLength(9);
    const requests = rebuilt(trace);
    expect(requests.map((r) => r.n)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    requests.forEach(({ n, json }) => {
      expect(json).toBe(received(model, n - 1));
      expect(requestOf(trace, n) && JSON.stringify(requestOf(trace, n))).toBe(json);
    });
    // a pause_turn continuation was merged into the last message: the next request sent it changed
    const deltas = iterations(trace.records).map((r) => r.request);
    expect(deltas[4]).toMatchObject({ base: 4, keep: 3 });
    expect(deltas[4].messages).toEqual([
      {
        role: "assistant",
        content: [
          { type: "text", text: "Half." },
          { type: "text", text: "More." },
        ],
      },
    ]);
    // system prompt and tools are written once, with the first request
    expect(deltas.filter((d) => d.system !== undefined || d.tools !== undefined).map((d) => d.n)).toEqual([1]);
    expect(historyProblems(messages)).toEqual([]);
  });

  it("keeps each record about the same size as the history grows: the trace grows linearly", async () => {
    const turns = 40;
    const files = Object.fromEntries(Array.from({ length: turns }, (_, k) => [`f${k}.txt`, `line of file ${k}\n`]));
    const script = Array.from({ length: turns }, (_, k) => reply([toolUse("read_file", { path: `f${k}.txt` })]));
    const { trace, writer, model } = await scriptedTrace([...script, textReply("Read them all.")], {
      files,
      options: { maxTurns: turns + 1 },
    });
    const lines = readFileSync(writer.path, "utf8").trimEnd().split("\n");
    // the tool turns after the first (which holds the system prompt and tools)
    const sizes = lines.slice(1, turns).map((line) => line.length);
    expect(Math.max(...sizes)).toBeLessThan(1.2 * Math.min(...sizes));
    // whole requests grow with every turn: written whole, they would have made a trace many times larger
    const whole = rebuilt(trace).map((r) => r.json.length);
    expect(whole.at(-1)).toBeGreaterThan(3 * whole[0]);
    expect(whole.reduce((a, b) => a + b, 0)).toBeGreaterThan(5 * readFileSync(writer.path).length);
    expect(rebuilt(trace).every(({ n, json }) => json === received(model, n - 1))).toBe(true);
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
    expect(historyProblems(messages)).toEqual([]);
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
    expect(historyProblems(messages)).toEqual([]);
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
    expect(historyProblems(messages)).toEqual([]);
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
    expect(historyProblems(messages)).toEqual([]);
  });

  it("writes an error record, not a result, when the stream fails; the error still reaches the caller", async () => {
    const cwd = tempDir("s04-loop-");
    const model = new ScriptedModel({
      script: [reply([toolUse("read_file", { path: "x" })]), { kind: "cut", afterEvents: 3 }],
    });
    const traced = testTrace("cut");
    const messages: MessageParam[] = [{ role: "user", content: "go" }];
    await expect(tracedRun(model.client(), messages, { model: "m", cwd }, traced)).rejects.toThrow();
    const trace = readTrace(traced.writer.path);
    const { records } = trace;
    expect(records.map((r) => r.type)).toEqual(["iteration", "error"]);
    expect(records[1]).toMatchObject({ type: "error", traceId: "cut", run: 0, turn: 2 });
    const error = records[1] as ErrorRecord;
    expect(error.message).not.toBe("");
    // the failed request can be put back together exactly as sent
    expect(error.request).toMatchObject({ n: 2, base: 1, keep: 1 });
    expect(JSON.stringify(requestOf(trace, 2))).toBe(received(model, 1));
    expect(requestOf(trace, 2)?.messages).toHaveLength(3);
    expect(Number.isNaN(Date.parse((records[1] as ErrorRecord).at))).toBe(false);
    expect(historyProblems(messages)).toEqual([]);
  });

  it("writes the iteration and an aborted result when the run is interrupted during its tools", async () => {
    const controller = new AbortController();
    const tools = toolMap([waitTool]);
    const model = new ScriptedModel({ script: [reply([toolUse("wait", { label: "long", forever: true })])] });
    const cwd = tempDir("s04-loop-");
    const traced = testTrace("abort");
    const messages: MessageParam[] = [{ role: "user", content: "wait" }];
    const result = await tracedRun(
      model.client(),
      messages,
      {
        model: "m",
        cwd,
        tools,
        signal: controller.signal,
        listen: (event) => (event.type === "tool_call" ? setImmediate(() => controller.abort()) : undefined),
      },
      traced,
    );
    expect(result).toMatchObject({ stopReason: "aborted", turns: 1, toolCalls: 1 });
    const { records } = readTrace(traced.writer.path);
    expect(records.map((r) => r.type)).toEqual(["iteration", "result"]);
    expect((records[0] as IterationRecord).toolCalls[0].result).toBe("long interrupted");
    expect((records[1] as ResultRecord).result).toEqual(result);
    expect(historyProblems(messages)).toEqual([]);
  });

  it("records the last turn's tool calls when the turn budget runs out", async () => {
    const { trace, results, messages } = await scriptedTrace([reply([toolUse("read_file", { path: "notes.txt" })])], {
      options: { maxTurns: 1 },
    });
    expect(results[0]).toMatchObject({ stopReason: "max_turns", turns: 1, toolCalls: 1 });
    expect(trace.records.map((r) => r.type)).toEqual(["iteration", "result"]);
    expect((trace.records[0] as IterationRecord).toolCalls).toHaveLength(1);
    expect(historyProblems(messages)).toEqual([]);
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
    expect(historyProblems(messages)).toEqual([]);
  });

  it("records a refused turn without running its tool", async () => {
    const { trace, results, messages } = await scriptedTrace([
      reply([text("I won't."), toolUse("bash", { command: "rm -rf /" })], { stopReason: "refusal" }),
    ]);
    expect(results[0]).toMatchObject({ stopReason: "final_answer", providerStopReason: "refusal", toolCalls: 0 });
    expect(trace.records.map((r) => r.type)).toEqual(["iteration", "result"]);
    expect((trace.records[0] as IterationRecord).toolCalls).toEqual([]);
    expect(historyProblems(messages)).toEqual([]);
  });

  it("records a pause_turn continuation with the request as it was sent, not as the merge left it", async () => {
    const { trace, messages } = await scriptedTrace([
      reply([text("Part one.")], { stopReason: "pause_turn" }),
      textReply("Part two."),
    ]);
    const [paused] = iterations(trace.records);
    expect(paused.response.stopReason).toBe("pause_turn");
    expect(requestOf(trace, 2)?.messages).toEqual([
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
    expect(historyProblems(messages)).toEqual([]);
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
    // the second run's request extends the first run's
    expect(second.request).toMatchObject({ n: 2, base: 1, keep: 1 });
    expect(requestOf(trace, 2)?.messages).toEqual([
      { role: "user", content: "first question" },
      { role: "assistant", content: [{ type: "text", text: "First answer." }] },
      { role: "user", content: "second question" },
    ]);
    expect(results.map((r) => r.finalText)).toEqual(["First answer.", "Second answer."]);
    expect(historyProblems(messages)).toEqual([]);
  });

  it("sends the same requests and returns the same result with or without a trace", async () => {
    const script = () => [reply([toolUse("read_file", { path: "notes.txt" })]), textReply("Done.")];
    const traced = await scriptedTrace(script());
    const plain = new ScriptedModel({ script: script() });
    const messages: MessageParam[] = [{ role: "user", content: "Read notes.txt" }];
    const result = await agentLoop(sendStreamed(plain.client()), messages, { model: "test-model", cwd: traced.cwd });
    expect(plain.requests.map((r) => r.body)).toEqual(traced.model.requests.map((r) => r.body));
    expect(result).toEqual(traced.results[0]);
    expect(messages).toEqual(traced.messages);
    expect(historyProblems(messages)).toEqual([]);
  });

  it("writes nothing when no recorder listens", async () => {
    const cwd = tempDir("s04-loop-");
    const home = tempDir("s04-home-");
    vi.stubEnv("HARNESS_HOME", home);
    vi.stubEnv("HARNESS_TRACE_DIR", "");
    try {
      const model = new ScriptedModel({ script: [textReply("Hi.")] });
      const messages: MessageParam[] = [{ role: "user", content: "hi" }];
      const result = await agentLoop(sendStreamed(model.client()), messages, { model: "m", cwd });
      expect(result.stopReason).toBe("final_answer");
      expect(readdirSync(cwd)).toEqual([]);
      expect(readdirSync(home)).toEqual([]);
      expect(historyProblems(messages)).toEqual([]);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("has each record on disk before the next model call is sent", async () => {
    const cwd = tempDir("s04-loop-");
    const traced = testTrace("ordered");
    const { writer } = traced;
    const linesSeenAtCall: number[] = [];
    const replies = [reply([toolUse("read_file", { path: "a" })]), reply([toolUse("read_file", { path: "b" })])];
    // the model notes what is on disk as each request reaches it
    const model = new ScriptedModel({
      brain: () => {
        linesSeenAtCall.push(existsSync(writer.path) ? readFileSync(writer.path, "utf8").split("\n").length - 1 : 0);
        return replies.shift() ?? textReply("Done.");
      },
    });
    const messages: MessageParam[] = [{ role: "user", content: "go" }];
    await tracedRun(model.client(), messages, { model: "m", cwd, tools: toolMap([readFileTool]) }, traced);
    expect(linesSeenAtCall).toEqual([0, 1, 2]);
    expect(readTrace(writer.path).records.map((r) => r.type)).toEqual([
      "iteration",
      "iteration",
      "iteration",
      "result",
    ]);
    expect(historyProblems(messages)).toEqual([]);
  });
});

describe("TraceRecorder's trace file", () => {
  const openFiles = () => readdirSync("/dev/fd").length;

  it.each([
    ["returns", textReply("Done.")],
    ["throws", { kind: "http_error", status: 400, message: "messages: bad" } as ScriptStep],
  ])("is open while a run writes to it and closed when the run %s", async (_, last) => {
    const cwd = tempDir("s04-fd-");
    const traced = testTrace("fd");
    const { writer } = traced;
    const replies = [reply([toolUse("read_file", { path: "x" })]), last];
    const seen: number[] = []; // files open as each request reaches the model
    const model = new ScriptedModel({
      brain: () => {
        seen.push(openFiles());
        return replies.shift() ?? textReply("Done.");
      },
    });
    const before = openFiles();
    const messages: MessageParam[] = [{ role: "user", content: "go" }];
    const run = tracedRun(
      model.client({ maxRetries: 0 }),
      messages,
      { model: "m", cwd, tools: toolMap([readFileTool]) },
      traced,
    );
    await run.catch(() => undefined);
    expect(readTrace(writer.path).records.map((r) => r.type)).toEqual(
      last.kind === "reply" ? ["iteration", "iteration", "result"] : ["iteration", "error"],
    );
    expect(seen).toEqual([before, before + 1]); // the first record was written before the second request
    expect(openFiles()).toBe(before);
  });
});

describe("TraceRecorder on every way out of the loop", () => {
  type Exit = {
    script: ScriptStep[];
    options?: Partial<TracedRunOptions>;
    /** Abort the run from a listener, at this point. */
    abortAt?: "start" | "modelCall" | "text" | "toolCall" | "turn";
    stopReason?: StopReason;
    /** The run throws instead of returning. */
    throws?: boolean;
    /** Model calls that completed: each must be recorded. */
    completed: number;
  };
  const tools = toolMap([waitTool, readFileTool]);
  const exits: Record<string, Exit> = {
    final_answer: {
      script: [reply([toolUse("read_file", { path: "notes.txt" })]), textReply("Done.")],
      stopReason: "final_answer",
      completed: 2,
    },
    max_tokens: {
      script: [reply([text("Cut"), toolUse("read_file", { path: "notes.txt" })], { stopReason: "max_tokens" })],
      stopReason: "max_tokens",
      completed: 1,
    },
    refusal: { script: [textReply("No.", { stopReason: "refusal" })], stopReason: "final_answer", completed: 1 },
    max_turns: {
      script: [reply([toolUse("read_file", { path: "notes.txt" })]), reply([toolUse("wait", { label: "x" })])],
      options: { maxTurns: 2 },
      stopReason: "max_turns",
      completed: 2,
    },
    "aborted before the first model call": {
      script: [textReply("Never sent.")],
      abortAt: "start",
      stopReason: "aborted",
      completed: 0,
    },
    "aborted while waiting for the model": {
      script: [reply([toolUse("read_file", { path: "notes.txt" })]), { kind: "hang" }],
      abortAt: "modelCall",
      stopReason: "aborted",
      completed: 1,
    },
    "aborted mid-stream": {
      script: [reply([text(`${"word ".repeat(40)}end`)], { eventDelayMs: 5 })],
      abortAt: "text",
      stopReason: "aborted",
      completed: 0,
    },
    "aborted while tools run": {
      script: [reply([toolUse("wait", { label: "long", forever: true })])],
      abortAt: "toolCall",
      stopReason: "aborted",
      completed: 1,
    },
    "aborted after a pause_turn": {
      script: [reply([text("Part one.")], { stopReason: "pause_turn" }), textReply("Never sent.")],
      abortAt: "turn",
      stopReason: "aborted",
      completed: 1,
    },
    "a stream that fails": {
      script: [reply([toolUse("read_file", { path: "notes.txt" })]), { kind: "cut", afterEvents: 3 }],
      throws: true,
      completed: 1,
    },
    "a model call refused by the API": {
      script: [{ kind: "http_error", status: 400, message: "messages: bad" }],
      throws: true,
      completed: 0,
    },
  };

  const exitCases = Object.entries(exits);
  it.each(exitCases)("%s: every completed iteration, then the run's end", async (_, exit) => {
    const cwd = tempDir("s04-exit-");
    const model = new ScriptedModel({ script: exit.script });
    const traced = testTrace("exit");
    const controller = new AbortController();
    // at once after a turn (before the loop goes round), a moment later elsewhere (once the call is under way)
    const abort = (at: Exit["abortAt"]) => () => {
      if (exit.abortAt !== at) return;
      if (at === "turn") controller.abort();
      else setImmediate(() => controller.abort());
    };
    if (exit.abortAt === "start") controller.abort();
    const messages: MessageParam[] = [{ role: "user", content: "go" }];
    // told each event before the recorder, as main.ts has the view
    const listen = (event: TracedEvent) => {
      if (event.type === "model_call" && (event.turnNumber === 2 || exit.script.length === 1)) abort("modelCall")();
      if (event.type === "text") abort("text")();
      if (event.type === "tool_call") abort("toolCall")();
      if (event.type === "turn") abort("turn")();
    };
    const options = { model: "m", cwd, tools, signal: controller.signal, listen, ...exit.options };
    const run = tracedRun(model.client({ maxRetries: 0 }), messages, options, traced);
    let result: AgentLoopResult<StopReason> | undefined;
    if (exit.throws) await expect(run).rejects.toThrow();
    else result = await run;

    const trace = readTrace(traced.writer.path);
    expect(trace.skippedLines).toBe(0);
    expect(trace.records.slice(0, exit.completed).map((r) => r.type)).toEqual(
      Array.from({ length: exit.completed }, () => "iteration"),
    );
    expect(trace.records).toHaveLength(exit.completed + 1);
    const end = trace.records.at(-1);
    if (exit.throws) {
      expect(end).toMatchObject({ type: "error", turn: exit.completed + 1 });
    } else {
      expect(result?.stopReason).toBe(exit.stopReason);
      expect(end).toEqual({ type: "result", version: 2, traceId: "exit", run: 0, at: expect.any(String), result });
    }
    // every recorded request reads back as the model received it
    for (const { n, json } of rebuilt(trace)) expect(json).toBe(received(model, n - 1));
    expect(historyProblems(messages)).toEqual([]);
  });
});

describe("TraceRecorder across runs", () => {
  it("numbers the next run after one that failed, once the run is ended", async () => {
    const cwd = tempDir("s04-runs-");
    const model = new ScriptedModel({
      script: [
        reply([toolUse("read_file", { path: "x" })]),
        { kind: "http_error", status: 400, message: "messages: bad" },
        textReply("Back again."),
      ],
    });
    const traced = testTrace("runs");
    const messages: MessageParam[] = [{ role: "user", content: "first" }];
    const options = { model: "m", cwd, tools: toolMap([readFileTool]) };
    await expect(tracedRun(model.client({ maxRetries: 0 }), messages, options, traced)).rejects.toThrow();
    // the history is left as it was before the failed call: the next prompt joins its tool results
    appendUserText(messages, "second");
    const result = await tracedRun(model.client({ maxRetries: 0 }), messages, options, traced);
    expect(result.finalText).toBe("Back again.");
    const trace = readTrace(traced.writer.path);
    expect(trace.records.map((r) => [r.type, r.run])).toEqual([
      ["iteration", 0],
      ["error", 0],
      ["iteration", 1],
      ["result", 1],
    ]);
    expect((trace.records[2] as IterationRecord).turn).toBe(1);
    for (const { n, json } of rebuilt(trace)) expect(json).toBe(received(model, n - 1));
  });

  it("keeps a run's number through a model_error the run survives, and writes the call sent again", () => {
    // no s04 run goes on after a model_error; a later chapter's context window does (s08 resends a
    // request the API found too long): the recorder writes the error and the same turn again
    const traced = testTrace("resend");
    const request: MessageCreateParamsNonStreaming = {
      model: "m",
      max_tokens: 10,
      system: "s",
      tools: [],
      messages: [{ role: "user", content: "hi" }],
    };
    const response = {
      id: "msg_1",
      type: "message" as const,
      role: "assistant" as const,
      model: "m",
      content: [{ type: "text" as const, text: "Hello.", citations: null }],
      stop_reason: "end_turn" as const,
      stop_sequence: null,
      usage: { input_tokens: 5, output_tokens: 2 },
    } as unknown as Message;
    const turn = AgentTurn.fromResponse(response);
    const result = {
      stopReason: "final_answer",
      turns: 1,
      toolCalls: 0,
      finalText: "Hello.",
      providerStopReason: "end_turn",
      usage: turn.usage,
    };
    const events: TracedEvent[] = [
      { type: "model_call", turnNumber: 1, request },
      { type: "model_error", error: new Error("prompt is too long") },
      {
        type: "model_call",
        turnNumber: 1,
        request: { ...request, messages: [{ role: "user", content: "hi, shorter" }] },
      },
      { type: "stream_start" },
      { type: "turn", turn, response },
      { type: "end", result },
    ];
    for (const event of events) traced.recorder.record(event);
    const trace = readTrace(traced.writer.path);
    expect(trace.records.map((r) => [r.type, r.run, "turn" in r ? r.turn : undefined])).toEqual([
      ["error", 0, 1],
      ["iteration", 0, 1],
      ["result", 0, undefined],
    ]);
    expect(trace.records[0]).toMatchObject({ message: "prompt is too long", request: { n: 1 } });
    expect(requestOf(trace, 2)?.messages).toEqual([{ role: "user", content: "hi, shorter" }]);
    expect((trace.records[2] as ResultRecord).result).toEqual(result);
  });

  it("writes nothing for a model_error before any model call, and nothing for the events of no run", () => {
    const traced = testTrace("empty");
    const events: TracedEvent[] = [
      { type: "model_error", error: new Error("no call") },
      { type: "text", text: "stray" },
    ];
    for (const event of events) traced.recorder.record(event);
    traced.recorder.endRun();
    expect(existsSync(traced.writer.path)).toBe(false);
  });
});
