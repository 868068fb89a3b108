import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { reply, ScriptedModel, text, textReply, toolUse } from "@harness/scripted-model";
import { historyProblems } from "@harness/shared";
import { describe, expect, it } from "vitest";
import type { IterationRecord } from "../src/trace-record.ts";
import { TraceRecorder } from "../src/trace-recorder.ts";
import { TraceWriter } from "../src/trace-writer.ts";
import {
  listTraces,
  promptOf,
  readTrace,
  requestOf,
  runPrompts,
  sentRequests,
  summariseTrace,
  tracePath,
} from "../src/viewer/read-trace.ts";
import { scriptedTrace, tempDir as tempDirNamed, tracedRun } from "./scripted-trace.ts";

/** Each request of a trace rebuilt, as JSON. */
const rebuiltJson = (trace: ReturnType<typeof readTrace>) =>
  [...sentRequests(trace)].map(({ request }) => JSON.stringify(request));

const tempDir = () => tempDirNamed("s04-read-");

describe("readTrace", () => {
  it("reads every record in file order, and names the trace after its file", async () => {
    const { trace, writer, messages } = await scriptedTrace([
      reply([toolUse("read_file", { path: "notes.txt" })]),
      textReply("Done."),
    ]);
    expect(trace.id).toBe("test-trace");
    expect(trace.path).toBe(writer.path);
    expect(trace.records.map((r) => r.type)).toEqual(["iteration", "iteration", "result"]);
    expect(trace.skippedLines).toBe(0);
    expect(historyProblems(messages)).toEqual([]);
  });

  it("skips and counts a torn last line, keeping everything before it", async () => {
    const { writer, messages } = await scriptedTrace([textReply("Done.")]);
    appendFileSync(writer.path, '{"type":"iteration","traceId":"test-trace","run":1,"request":{"mod');
    const trace = readTrace(writer.path);
    expect(trace.records.map((r) => r.type)).toEqual(["iteration", "result"]);
    expect(trace.skippedLines).toBe(1);
    expect(historyProblems(messages)).toEqual([]);
  });

  it("skips lines that are JSON but not records, and ignores blank lines", () => {
    const path = join(tempDir(), "odd.jsonl");
    const request = { n: 1, keep: 0, model: "m", max_tokens: 1, system: "", tools: [], messages: [] };
    const error = { type: "error", version: 2, traceId: "odd", run: 0, turn: 1, at: "x", message: "m", request };
    writeFileSync(path, `\n${JSON.stringify(error)}\n\n42\nnull\n[1]\n`);
    const trace = readTrace(path);
    expect(trace.id).toBe("odd");
    expect(trace.records).toHaveLength(1);
    expect(trace.skippedLines).toBe(3);
  });

  it("loses at most the iteration in flight when the last line is cut at any byte", async () => {
    const { writer, model, messages } = await scriptedTrace([
      reply([text("Reading."), toolUse("read_file", { path: "notes.txt" })]),
      reply([toolUse("glob", { pattern: "*.txt" })]),
      textReply("Alpha and beta, in notes.txt."),
    ]);
    const bytes = readFileSync(writer.path);
    const lines = bytes.toString("utf8").trimEnd().split("\n");
    expect(lines.map((l) => JSON.parse(l).type)).toEqual(["iteration", "iteration", "iteration", "result"]);
    // cut inside the last iteration, the line being written when the process died
    const start = Buffer.byteLength(`${lines.slice(0, 2).join("\n")}\n`);
    const end = start + Buffer.byteLength(lines[2]);
    const expected = [0, 1].map((i) => {
      const { model: id, max_tokens, system, tools, messages } = model.requests[i].body;
      return JSON.stringify({ model: id, max_tokens, system, tools, messages });
    });
    const path = join(tempDir(), "cut.jsonl");
    for (let at = start; at < end; at++) {
      writeFileSync(path, bytes.subarray(0, at));
      const trace = readTrace(path);
      expect(trace.records.map((r) => r.type)).toEqual(["iteration", "iteration"]);
      expect(trace.skippedLines).toBe(at === start ? 0 : 1);
      expect(rebuiltJson(trace)).toEqual(expected);
    }
    expect(historyProblems(messages)).toEqual([]);
  });

  it("reopens a trace cut at any byte of its last line and goes on with a request written whole", async () => {
    const { writer, messages } = await scriptedTrace([
      reply([toolUse("read_file", { path: "notes.txt" })]),
      textReply("Alpha and beta."),
    ]);
    const bytes = readFileSync(writer.path);
    const lines = bytes.toString("utf8").trimEnd().split("\n");
    const start = Buffer.byteLength(`${lines[0]}\n`);
    const end = start + Buffer.byteLength(lines[1]);
    const dir = tempDir();
    for (let at = start; at < end; at += 13) {
      writeFileSync(join(dir, "reopened.jsonl"), bytes.subarray(0, at));
      const again = new TraceWriter("reopened", dir, []);
      expect(again.run).toBe(1);
      const model = new ScriptedModel({ script: [textReply("Again.")] });
      const traced = { writer: again, recorder: new TraceRecorder(again) };
      await tracedRun(model.client(), [{ role: "user", content: "again" }], { model: "m", cwd: dir }, traced);
      const trace = readTrace(again.path);
      const second = trace.records.find((r): r is IterationRecord => r.type === "iteration" && r.run === 1);
      expect(second?.request).toMatchObject({ n: 2, keep: 0 });
      expect(second?.request.base).toBeUndefined();
      expect(requestOf(trace, 2)?.messages).toEqual([{ role: "user", content: "again" }]);
      expect(trace.skippedLines).toBe(at === start ? 0 : 1);
    }
    expect(historyProblems(messages)).toEqual([]);
  });

  it("skips a request whose base is not in the file, and every request that extends it", async () => {
    const { writer, messages } = await scriptedTrace([
      reply([toolUse("read_file", { path: "notes.txt" })]),
      reply([toolUse("glob", { pattern: "*" })]),
      textReply("Done."),
    ]);
    const lines = readFileSync(writer.path, "utf8").trimEnd().split("\n");
    const path = join(tempDir(), "holes.jsonl");
    writeFileSync(path, `${[lines[0], lines[2], lines[3]].join("\n")}\n`); // request 2 is gone
    const trace = readTrace(path);
    expect(trace.records.map((r) => r.type)).toEqual(["iteration", "result"]);
    expect(trace.skippedLines).toBe(1);
    expect(historyProblems(messages)).toEqual([]);
  });

  it("reads a trace of format 1, whose every request is whole", () => {
    const path = join(tempDir(), "old.jsonl");
    const whole = (messages: unknown[]) => ({ model: "m", max_tokens: 5, system: "s", tools: [], messages });
    const lines = [
      {
        type: "iteration",
        traceId: "old",
        run: 0,
        turn: 1,
        startedAt: "2026-01-01T00:00:00.000Z",
        request: whole([{ role: "user", content: "hi" }]),
      },
      { type: "result", traceId: "old", run: 0, at: "2026-01-01T00:00:01.000Z", result: {} },
      {
        type: "error",
        traceId: "old",
        run: 1,
        turn: 1,
        startedAt: "2026-01-01T00:00:02.000Z",
        at: "2026-01-01T00:00:03.000Z",
        message: "m",
        request: whole([
          { role: "user", content: "hi" },
          { role: "assistant", content: "yo" },
          { role: "user", content: "again" },
        ]),
      },
    ];
    writeFileSync(path, lines.map((l) => `${JSON.stringify(l)}\n`).join(""));
    const trace = readTrace(path);
    expect(trace.skippedLines).toBe(0);
    expect(trace.records.map((r) => [r.type, r.version])).toEqual([
      ["iteration", 2],
      ["result", 2],
      ["error", 2],
    ]);
    expect(requestOf(trace, 1)).toEqual(lines[0].request);
    expect(requestOf(trace, 2)).toEqual(lines[2].request);
  });

  it("refuses, in one line, a trace of a format newer than it reads", () => {
    const path = join(tempDir(), "new.jsonl");
    writeFileSync(path, `${JSON.stringify({ type: "result", version: 3, traceId: "new", run: 0 })}\n`);
    expect(() => readTrace(path)).toThrow(`${path}, line 1: trace format 3, but this tracer reads formats 1 to 2`);
    expect(() => new TraceWriter("new", join(path, ".."), [])).toThrow(/trace format 3/);
  });

  it("reads an empty file as an empty trace", () => {
    const path = join(tempDir(), "empty.jsonl");
    writeFileSync(path, "");
    expect(readTrace(path)).toMatchObject({ id: "empty", records: [], skippedLines: 0 });
  });
});

describe("tracePath", () => {
  it("finds a trace by id", async () => {
    const { writer, messages } = await scriptedTrace([textReply("Done.")]);
    expect(tracePath(join(writer.path, ".."), "test-trace")).toBe(writer.path);
    expect(historyProblems(messages)).toEqual([]);
  });

  it("says in one line where it looked when there is no such trace", () => {
    const dir = tempDir();
    expect(() => tracePath(dir, "nope")).toThrow(`no trace "nope" in ${dir} (pnpm trace list shows the ids)`);
  });

  it("refuses an id that would name a file outside the trace directory", () => {
    const dir = join(tempDir(), "traces");
    writeFileSync(join(dir, "..", "outside.jsonl"), "");
    expect(() => tracePath(dir, "../outside")).toThrow(/^invalid trace id/);
  });
});

describe("summariseTrace", () => {
  it("gives the first prompt, the stop reason, turns, tool calls and tokens", async () => {
    const { trace, messages } = await scriptedTrace(
      [
        reply([toolUse("read_file", { path: "notes.txt" }), toolUse("glob", { pattern: "*" })], {
          usage: { input_tokens: 100, output_tokens: 10 },
        }),
        textReply("Two files.", { usage: { input_tokens: 150, output_tokens: 5 } }),
      ],
      { prompts: ["What is here?"] },
    );
    expect(summariseTrace(trace)).toEqual({
      id: "test-trace",
      path: trace.path,
      startedAt: (trace.records[0] as IterationRecord).startedAt,
      firstPrompt: "What is here?",
      stopReason: "final_answer",
      turns: 2,
      toolCalls: 2,
      inputTokens: 250,
      outputTokens: 15,
    });
    expect(historyProblems(messages)).toEqual([]);
  });

  it("counts every run of a session and reports the last run's stop reason", async () => {
    const { trace, messages } = await scriptedTrace(
      [textReply("A.", { usage: { input_tokens: 10, output_tokens: 1 } }), reply([toolUse("glob", { pattern: "*" })])],
      { prompts: ["first", "second"], options: { maxTurns: 1 } },
    );
    expect(summariseTrace(trace)).toMatchObject({
      firstPrompt: "first",
      stopReason: "max_turns",
      turns: 2,
      toolCalls: 1,
    });
    expect(historyProblems(messages)).toEqual([]);
  });

  it("says error when the trace ends with an error record", () => {
    const path = join(tempDir(), "failed.jsonl");
    const request = { n: 1, keep: 0, model: "m", max_tokens: 1, messages: [{ role: "user", content: "hi" }] };
    const error = {
      type: "error",
      version: 2,
      traceId: "failed",
      run: 0,
      turn: 1,
      at: "2026-01-01T00:00:00.000Z",
      message: "m",
      request,
    };
    writeFileSync(path, `${JSON.stringify(error)}\n`);
    expect(summariseTrace(readTrace(path))).toMatchObject({
      stopReason: "error",
      turns: 0,
      startedAt: "",
      firstPrompt: "",
    });
  });

  it("says the run was still going or was killed when the last record is an iteration", async () => {
    const { writer, messages } = await scriptedTrace([reply([toolUse("glob", { pattern: "*" })]), textReply("Done.")]);
    const lines = readTrace(writer.path).records.slice(0, 1);
    const path = join(tempDir(), "killed.jsonl");
    writeFileSync(path, `${JSON.stringify(lines[0])}\n{"type":"iter`);
    expect(summariseTrace(readTrace(path))).toMatchObject({ stopReason: "(running or killed)", turns: 1 });
    expect(historyProblems(messages)).toEqual([]);
  });
});

describe("listTraces", () => {
  const iterationAt = (traceId: string, startedAt: string, prompt: string) =>
    JSON.stringify({
      type: "iteration",
      version: 2,
      traceId,
      run: 0,
      turn: 1,
      startedAt,
      request: { n: 1, keep: 0, model: "m", max_tokens: 1, messages: [{ role: "user", content: prompt }] },
      response: {
        id: "r",
        model: "m",
        content: [],
        stopReason: "end_turn",
        usage: { inputTokens: 1, outputTokens: 2 },
      },
      toolCalls: [],
      timings: { ttftMs: 1, modelMs: 2, toolMs: 0 },
    });

  it("lists every trace in the directory, newest first, and nothing else", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "old.jsonl"), `${iterationAt("old", "2026-01-01T00:00:00.000Z", "old prompt")}\n`);
    writeFileSync(join(dir, "new.jsonl"), `${iterationAt("new", "2026-02-01T00:00:00.000Z", "new prompt")}\n`);
    writeFileSync(join(dir, "mid.jsonl"), `${iterationAt("mid", "2026-01-15T00:00:00.000Z", "mid prompt")}\n`);
    writeFileSync(join(dir, "new.html"), "<html></html>");
    writeFileSync(join(dir, "new.otlp.json"), "{}");
    const traces = listTraces(dir);
    expect(traces.map((t) => t.id)).toEqual(["new", "mid", "old"]);
    expect(traces.map((t) => t.firstPrompt)).toEqual(["new prompt", "mid prompt", "old prompt"]);
  });

  it("is empty when the directory does not exist", () => {
    expect(listTraces(join(tempDir(), "missing"))).toEqual([]);
  });
});

describe("promptOf and runPrompts", () => {
  it("is the user's text that started the run, not the tool results after it", async () => {
    const { trace, messages } = await scriptedTrace(
      [reply([toolUse("glob", { pattern: "*" })]), textReply("One file."), textReply("Bye.")],
      { prompts: ["What files?", "Thanks"] },
    );
    expect([...sentRequests(trace)].map(({ request }) => promptOf(request))).toEqual([
      "What files?",
      "What files?",
      "Thanks",
    ]);
    expect(runPrompts(trace)).toEqual(
      new Map([
        [0, "What files?"],
        [1, "Thanks"],
      ]),
    );
    expect(historyProblems(messages)).toEqual([]);
  });
});

describe("requestOf", () => {
  it("is undefined for a number no request has", async () => {
    const { trace, messages } = await scriptedTrace([textReply("Done.")]);
    expect(requestOf(trace, 1)).toBeDefined();
    for (const n of [0, 2, -1, 1.5, Number.NaN]) expect(requestOf(trace, n)).toBeUndefined();
    expect(historyProblems(messages)).toEqual([]);
  });
});
