import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { reply, ScriptedModel, text, textReply, toolUse } from "@harness/scripted-model";
import { historyProblems } from "@harness/shared";
import { describe, expect, it } from "vitest";
import type { IterationRecord, ResultRecord } from "../src/trace-record.ts";
import { type LoadedTrace, readTrace } from "../src/viewer/read-trace.ts";
import { type OtlpSpan, toOtlp } from "../src/viewer/to-otlp.ts";
import { scriptedTrace, tempDir, testTrace, tracedRun } from "./scripted-trace.ts";

type Document = {
  resourceSpans: {
    resource: { attributes: OtlpSpan["attributes"] };
    scopeSpans: { scope: { name: string }; spans: OtlpSpan[] }[];
  }[];
};

const spansOf = (trace: LoadedTrace) => (toOtlp(trace) as Document).resourceSpans[0].scopeSpans[0].spans;
const attr = (span: OtlpSpan, key: string) => span.attributes.find((a) => a.key === key)?.value;
const nanosOf = (iso: string, plusMs = 0) => (BigInt(Math.round((Date.parse(iso) + plusMs) * 1000)) * 1000n).toString();

/** Two runs: read two files (one missing), answer; then a second prompt answered at once. */
async function twoRuns() {
  return scriptedTrace(
    [
      reply(
        [text("Reading."), toolUse("read_file", { path: "notes.txt" }), toolUse("read_file", { path: "gone.txt" })],
        {
          usage: { input_tokens: 100, output_tokens: 20 },
        },
      ),
      textReply("One file.", { usage: { input_tokens: 150, output_tokens: 4 } }),
      textReply("Bye.", { usage: { input_tokens: 160, output_tokens: 2 } }),
    ],
    { prompts: ["Read notes.txt and gone.txt", "Thanks"], traceId: "otlp-trace" },
  );
}

describe("toOtlp", () => {
  it("makes one invoke_agent span per run, with a chat span per model call and an execute_tool span per tool call", async () => {
    const { trace, messages } = await twoRuns();
    const spans = spansOf(trace);
    expect(spans.map((s) => s.name)).toEqual([
      "invoke_agent harness-course",
      "chat test-model",
      "execute_tool read_file",
      "execute_tool read_file",
      "chat test-model",
      "invoke_agent harness-course",
      "chat test-model",
    ]);
    const [run1, chat1, tool1, tool2, chat2, run2, chat3] = spans;
    expect(run1.parentSpanId).toBeUndefined();
    expect(run2.parentSpanId).toBeUndefined();
    for (const child of [chat1, tool1, tool2, chat2]) expect(child.parentSpanId).toBe(run1.spanId);
    expect(chat3.parentSpanId).toBe(run2.spanId);
    expect(spans.map((s) => s.kind)).toEqual([1, 3, 1, 1, 3, 1, 3]);
    expect(historyProblems(messages)).toEqual([]);
  });

  it("uses one trace id of 32 hex digits and distinct span ids of 16", async () => {
    const { trace, messages } = await twoRuns();
    const spans = spansOf(trace);
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
    expect(spans[0].traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(spans[0].traceId).not.toMatch(/^0+$/);
    for (const span of spans) {
      expect(span.spanId).toMatch(/^[0-9a-f]{16}$/);
      if (span.parentSpanId) expect(span.parentSpanId).toMatch(/^[0-9a-f]{16}$/);
    }
    expect(new Set(spans.map((s) => s.spanId)).size).toBe(spans.length);
    expect(historyProblems(messages)).toEqual([]);
  });

  it("gives times as nanosecond strings taken from the records", async () => {
    const { trace, messages } = await twoRuns();
    const spans = spansOf(trace);
    for (const span of spans) {
      expect(span.startTimeUnixNano).toMatch(/^\d{19}$/);
      expect(span.endTimeUnixNano).toMatch(/^\d{19}$/);
      expect(BigInt(span.endTimeUnixNano) >= BigInt(span.startTimeUnixNano)).toBe(true);
    }
    const first = trace.records[0] as IterationRecord;
    const [run1, chat1, tool1] = spans;
    expect(run1.startTimeUnixNano).toBe(nanosOf(first.startedAt));
    expect(chat1.startTimeUnixNano).toBe(nanosOf(first.startedAt));
    expect(chat1.endTimeUnixNano).toBe(nanosOf(first.startedAt, first.timings.modelMs));
    expect(tool1.startTimeUnixNano).toBe(nanosOf(first.startedAt, first.toolCalls[0].startOffsetMs));
    const result = trace.records.find((r) => r.type === "result") as ResultRecord;
    expect(BigInt(run1.endTimeUnixNano) >= BigInt(nanosOf(result.at))).toBe(true);
    // the run holds its children
    for (const child of spans.slice(1, 5)) {
      expect(BigInt(child.startTimeUnixNano) >= BigInt(run1.startTimeUnixNano)).toBe(true);
      expect(BigInt(child.endTimeUnixNano) <= BigInt(run1.endTimeUnixNano)).toBe(true);
    }
    expect(historyProblems(messages)).toEqual([]);
  });

  it("sets the GenAI attributes: operation, provider, model, response, finish reason, usage", async () => {
    const { trace, messages } = await twoRuns();
    const [run1, chat1] = spansOf(trace);
    expect(attr(run1, "gen_ai.operation.name")).toEqual({ stringValue: "invoke_agent" });
    expect(attr(run1, "gen_ai.agent.name")).toEqual({ stringValue: "harness-course" });
    expect(attr(run1, "gen_ai.conversation.id")).toEqual({ stringValue: "otlp-trace" });
    expect(attr(run1, "gen_ai.usage.input_tokens")).toEqual({ intValue: "250" });
    expect(attr(run1, "gen_ai.usage.output_tokens")).toEqual({ intValue: "24" });
    expect(attr(run1, "harness.stop_reason")).toEqual({ stringValue: "final_answer" });
    expect(run1.status).toEqual({ code: 0 });

    expect(attr(chat1, "gen_ai.operation.name")).toEqual({ stringValue: "chat" });
    expect(attr(chat1, "gen_ai.provider.name")).toEqual({ stringValue: "anthropic" });
    expect(attr(chat1, "gen_ai.request.model")).toEqual({ stringValue: "test-model" });
    expect(attr(chat1, "gen_ai.request.max_tokens")).toEqual({ intValue: "8192" });
    expect(attr(chat1, "gen_ai.response.id")).toEqual({ stringValue: "msg_scripted_0001" });
    expect(attr(chat1, "gen_ai.response.finish_reasons")).toEqual({
      arrayValue: { values: [{ stringValue: "tool_use" }] },
    });
    expect(attr(chat1, "gen_ai.usage.input_tokens")).toEqual({ intValue: "100" });
    expect(attr(chat1, "gen_ai.usage.output_tokens")).toEqual({ intValue: "20" });
    const output = JSON.parse((attr(chat1, "gen_ai.output.messages") as { stringValue: string }).stringValue);
    expect(output).toEqual([{ role: "assistant", content: (trace.records[0] as IterationRecord).response.content }]);
    expect(historyProblems(messages)).toEqual([]);
  });

  it("describes each tool call, and marks a failed one with an error status", async () => {
    const { trace, messages } = await twoRuns();
    const [, , ok, failed] = spansOf(trace);
    expect(attr(ok, "gen_ai.operation.name")).toEqual({ stringValue: "execute_tool" });
    expect(attr(ok, "gen_ai.tool.name")).toEqual({ stringValue: "read_file" });
    expect(attr(ok, "gen_ai.tool.type")).toEqual({ stringValue: "function" });
    expect(attr(ok, "gen_ai.tool.call.id")).toEqual({ stringValue: "toolu_scripted_0001_1" });
    expect(attr(ok, "gen_ai.tool.call.arguments")).toEqual({ stringValue: '{"path":"notes.txt"}' });
    expect(attr(ok, "gen_ai.tool.call.result")).toEqual({ stringValue: "1\talpha\n2\tbeta" });
    expect(attr(ok, "error.type")).toBeUndefined();
    expect(ok.status).toEqual({ code: 0 });

    expect(failed.status).toEqual({ code: 2, message: "Error [not_found]: gone.txt does not exist." });
    expect(attr(failed, "error.type")).toEqual({ stringValue: "tool_error" });
    expect(historyProblems(messages)).toEqual([]);
  });

  it("marks a run that ended in a failed model call, with a chat span for the failed call", async () => {
    const cwd = tempDir("s04-otlp-");
    const model = new ScriptedModel({
      script: [
        reply([toolUse("glob", { pattern: "*" })]),
        { kind: "http_error", status: 400, message: "messages: something is off" },
      ],
    });
    const traced = testTrace("failed");
    const messages: MessageParam[] = [{ role: "user", content: "go" }];
    await expect(tracedRun(model.client(), messages, { model: "m", cwd }, traced)).rejects.toThrow();
    const spans = spansOf(readTrace(traced.writer.path));
    expect(spans.map((s) => s.name)).toEqual(["invoke_agent harness-course", "chat m", "execute_tool glob", "chat m"]);
    const [run, , , failedChat] = spans;
    expect(run.status.code).toBe(2);
    expect(run.status.message).toMatch(/something is off/);
    expect(failedChat.parentSpanId).toBe(run.spanId);
    expect(failedChat.status.code).toBe(2);
    expect(attr(failedChat, "error.type")).toEqual({ stringValue: "_OTHER" });
    expect(historyProblems(messages)).toEqual([]);
  });

  it("exports a run whose very first model call failed", async () => {
    const cwd = tempDir("s04-otlp-");
    const model = new ScriptedModel({ script: [{ kind: "http_error", status: 400 }] });
    const traced = testTrace("first-fails");
    const messages: MessageParam[] = [{ role: "user", content: "go" }];
    await expect(tracedRun(model.client(), messages, { model: "m", cwd }, traced)).rejects.toThrow();
    const spans = spansOf(readTrace(traced.writer.path));
    expect(spans.map((s) => [s.name, s.status.code])).toEqual([
      ["invoke_agent harness-course", 2],
      ["chat m", 2],
    ]);
    expect(historyProblems(messages)).toEqual([]);
  });

  it("marks a run with no result record (killed) as unfinished", async () => {
    const { trace, messages } = await twoRuns();
    const cut: LoadedTrace = { ...trace, records: trace.records.slice(0, 1) };
    const [run] = spansOf(cut);
    expect(run.status).toEqual({ code: 2, message: "the run has no result record" });
    expect(attr(run, "harness.stop_reason")).toBeUndefined();
    expect(historyProblems(messages)).toEqual([]);
  });

  it("is deterministic and names the service and scope", async () => {
    const { trace, messages } = await twoRuns();
    expect(JSON.stringify(toOtlp(trace))).toBe(JSON.stringify(toOtlp(trace)));
    const doc = toOtlp(trace) as Document;
    expect(doc.resourceSpans).toHaveLength(1);
    expect(doc.resourceSpans[0].resource.attributes).toEqual([
      { key: "service.name", value: { stringValue: "harness-course" } },
    ]);
    expect(doc.resourceSpans[0].scopeSpans[0].scope.name).toBe("@harness/s04-tracing");
    expect((toOtlp(trace, "my-agent") as Document).resourceSpans[0].scopeSpans[0].spans[0].name).toBe(
      "invoke_agent my-agent",
    );
    expect(historyProblems(messages)).toEqual([]);
  });

  it("has no spans for an empty trace", () => {
    expect(spansOf({ id: "e", path: "/e.jsonl", records: [], skippedLines: 0 })).toEqual([]);
  });
});
