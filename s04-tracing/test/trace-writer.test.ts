import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { ScriptedModel, textReply } from "@harness/scripted-model";
import { historyProblems } from "@harness/shared";
import { describe, expect, it } from "vitest";
import { isValidTraceId, type ResultRecord } from "../src/trace-record.ts";
import { TraceRecorder } from "../src/trace-recorder.ts";
import { newTraceId, TraceWriter, traceDir } from "../src/trace-writer.ts";
import { readTrace } from "../src/viewer/read-trace.ts";
import { tempDir as tempDirNamed, tracedRun } from "./scripted-trace.ts";

const tempDir = () => tempDirNamed("s04-writer-");
/** A writer and its recorder, as openTrace makes them. */
const traced = (writer: TraceWriter) => ({ writer, recorder: new TraceRecorder(writer) });

const resultRecord = (traceId: string, run: number, finalText: string): ResultRecord => ({
  type: "result",
  version: 2,
  traceId,
  run,
  at: "2026-01-02T03:04:05.000Z",
  result: {
    stopReason: "final_answer",
    turns: 1,
    toolCalls: 0,
    finalText,
    providerStopReason: "end_turn",
    usage: { inputTokens: 1, outputTokens: 1 },
  },
});

describe("traceDir", () => {
  it("is traces/ in the project's harness data directory, outside the project", () => {
    expect(traceDir("/work/project", { HARNESS_HOME: "/data/h" })).toBe("/data/h/projects/-work-project/traces");
    expect(traceDir("/work/project", {})).toBe(join(homedir(), ".harness", "projects", "-work-project", "traces"));
  });

  it("is HARNESS_TRACE_DIR when it is set", () => {
    expect(traceDir("/work/project", { HARNESS_TRACE_DIR: "/var/traces", HARNESS_HOME: "/data/h" })).toBe(
      "/var/traces",
    );
  });
});

describe("newTraceId", () => {
  it("starts with the UTC time, so ids sort by when they were made", () => {
    const id = newTraceId(new Date("2026-03-04T05:06:07.890Z"));
    expect(id).toMatch(/^20260304-050607-[a-z0-9]{1,6}$/);
    expect(newTraceId(new Date("2026-03-04T05:06:08Z")) > id).toBe(true);
  });

  it("makes valid, distinct ids", () => {
    const ids = Array.from({ length: 50 }, () => newTraceId());
    expect(ids.every(isValidTraceId)).toBe(true);
    expect(new Set(ids).size).toBe(50);
  });
});

describe("isValidTraceId", () => {
  it("accepts letters, digits, dot, dash and underscore", () => {
    for (const id of ["run1", "20260304-050607-ab12cd", "my_trace.v2", "A-b_c.d"])
      expect(isValidTraceId(id)).toBe(true);
  });

  it("refuses anything that could name another file", () => {
    for (const id of ["", "../x", "a/b", ".hidden", "a b", "x".repeat(101), "a\nb", "c:\\x"]) {
      expect(isValidTraceId(id)).toBe(false);
    }
  });
});

describe("TraceWriter", () => {
  it("refuses an invalid id with a one-line error", () => {
    expect(() => new TraceWriter("../escape", tempDir(), [])).toThrow(/^invalid trace id "\.\.\/escape"/);
  });

  it("creates the trace directory and names the file after the id", () => {
    const dir = join(tempDir(), "nested", "traces");
    const writer = new TraceWriter("abc", dir, []);
    expect(existsSync(dir)).toBe(true);
    expect(writer.path).toBe(join(dir, "abc.jsonl"));
    expect(writer.traceId).toBe("abc");
  });

  it("has each record on disk, as one line, when write returns", () => {
    const writer = new TraceWriter("lines", tempDir(), []);
    writer.write(resultRecord("lines", 0, "first"));
    expect(readFileSync(writer.path, "utf8")).toBe(`${JSON.stringify(resultRecord("lines", 0, "first"))}\n`);
    writer.write(resultRecord("lines", 1, "multi\nline"));
    const lines = readFileSync(writer.path, "utf8").split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe("");
    expect(JSON.parse(lines[1]).result.finalText).toBe("multi\nline");
  });

  it("only appends: earlier lines stay byte for byte", () => {
    const writer = new TraceWriter("append", tempDir(), []);
    writer.write(resultRecord("append", 0, "one"));
    const before = readFileSync(writer.path);
    writer.write(resultRecord("append", 1, "two"));
    writer.write(resultRecord("append", 2, "three"));
    const after = readFileSync(writer.path);
    expect(after.subarray(0, before.length).equals(before)).toBe(true);
    expect(readTrace(writer.path).records).toHaveLength(3);
  });

  it("appends to a trace that already exists, and numbers its runs after the ones in it", async () => {
    const dir = tempDir();
    const model = new ScriptedModel({ script: [textReply("One."), textReply("Two.")] });
    const first = new TraceWriter("reused", dir, []);
    const earlier: MessageParam[] = [{ role: "user", content: "one" }];
    await tracedRun(model.client(), earlier, { model: "m", cwd: dir }, traced(first));
    expect(historyProblems(earlier)).toEqual([]);
    const before = readFileSync(first.path);

    const second = new TraceWriter("reused", dir, []);
    const messages: MessageParam[] = [{ role: "user", content: "two" }];
    await tracedRun(model.client(), messages, { model: "m", cwd: dir }, traced(second));
    const after = readFileSync(second.path);
    expect(after.subarray(0, before.length).equals(before)).toBe(true);
    const trace = readTrace(second.path);
    expect(trace.records.map((r) => [r.type, r.run])).toEqual([
      ["iteration", 0],
      ["result", 0],
      ["iteration", 1],
      ["result", 1],
    ]);
    // the reopened writer numbers its requests on, and writes its first one whole
    const requests = trace.records.flatMap((r) => (r.type === "iteration" ? [r.request] : []));
    expect(requests.map((r) => [r.n, r.base, r.keep])).toEqual([
      [1, undefined, 0],
      [2, undefined, 0],
    ]);
    expect(requests[1].tools).toHaveLength(6);
    expect(historyProblems(messages)).toEqual([]);
  });

  it("starts on a new line after a torn last line, so the next record stays readable", () => {
    const dir = tempDir();
    const first = new TraceWriter("torn", dir, []);
    first.write(resultRecord("torn", 0, "ok"));
    appendFileSync(first.path, '{"type":"iteration","traceId":"to');
    const second = new TraceWriter("torn", dir, []);
    expect(second.run).toBe(1);
    second.write(resultRecord("torn", 1, "after"));
    const trace = readTrace(second.path);
    expect(trace.records.map((r) => r.run)).toEqual([0, 1]);
    expect(trace.skippedLines).toBe(1);
  });

  it("replaces the secrets it is given before a line is written", () => {
    const secret = "my-very-secret-token-123";
    const writer = new TraceWriter("secret", tempDir(), [secret]);
    writer.write(resultRecord("secret", 0, `the token is ${secret}`));
    const raw = readFileSync(writer.path, "utf8");
    expect(raw).not.toContain(secret);
    expect(JSON.parse(raw).result.finalText).toBe("the token is [REDACTED]");
  });
});
