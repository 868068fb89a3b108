import { appendFileSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isValidHistory, reply, textReply, toolUse } from "@harness/shared";
import { describe, expect, it } from "vitest";
import { listTraces, promptOf, readTrace, summariseTrace, tracePath } from "../src/read-trace.ts";
import type { IterationRecord } from "../src/trace-record.ts";
import { scriptedTrace } from "./scripted-trace.ts";

const tempDir = () => mkdtempSync(join(tmpdir(), "s03-read-"));

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
    expect(isValidHistory(messages)).toBe(true);
  });

  it("skips and counts a torn last line, keeping everything before it", async () => {
    const { writer, messages } = await scriptedTrace([textReply("Done.")]);
    appendFileSync(writer.path, '{"type":"iteration","traceId":"test-trace","run":1,"request":{"mod');
    const trace = readTrace(writer.path);
    expect(trace.records.map((r) => r.type)).toEqual(["iteration", "result"]);
    expect(trace.skippedLines).toBe(1);
    expect(isValidHistory(messages)).toBe(true);
  });

  it("skips lines that are JSON but not records, and ignores blank lines", () => {
    const path = join(tempDir(), "odd.jsonl");
    writeFileSync(
      path,
      '\n{"type":"error","traceId":"odd","run":0,"turn":1,"at":"x","message":"m"}\n\n42\nnull\n[1]\n',
    );
    const trace = readTrace(path);
    expect(trace.id).toBe("odd");
    expect(trace.records).toHaveLength(1);
    expect(trace.skippedLines).toBe(3);
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
    expect(isValidHistory(messages)).toBe(true);
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
    expect(isValidHistory(messages)).toBe(true);
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
    expect(isValidHistory(messages)).toBe(true);
  });

  it("says error when the trace ends with an error record", () => {
    const path = join(tempDir(), "failed.jsonl");
    const error = { type: "error", traceId: "failed", run: 0, turn: 1, at: "2026-01-01T00:00:00.000Z", message: "m" };
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
    expect(isValidHistory(messages)).toBe(true);
  });
});

describe("listTraces", () => {
  const iterationAt = (traceId: string, startedAt: string, prompt: string) =>
    JSON.stringify({
      type: "iteration",
      traceId,
      run: 0,
      turn: 1,
      startedAt,
      request: { model: "m", max_tokens: 1, system: "", tools: [], messages: [{ role: "user", content: prompt }] },
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

describe("promptOf", () => {
  it("is the user's text that started the run, not the tool results after it", async () => {
    const { trace, messages } = await scriptedTrace(
      [reply([toolUse("glob", { pattern: "*" })]), textReply("One file."), textReply("Bye.")],
      { prompts: ["What files?", "Thanks"] },
    );
    const its = trace.records.filter((r): r is IterationRecord => r.type === "iteration");
    expect(its.map(promptOf)).toEqual(["What files?", "What files?", "Thanks"]);
    expect(isValidHistory(messages)).toBe(true);
  });
});
