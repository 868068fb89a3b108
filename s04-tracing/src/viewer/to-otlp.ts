/**
 * A trace as OpenTelemetry spans (OTLP/JSON), named and attributed per the GenAI semantic
 * conventions, so it loads into tools people already use (Jaeger, Tempo, Langfuse, Phoenix...).
 * One `invoke_agent` span per run; under it a `chat` span per model call and an `execute_tool`
 * span per tool call. A failed tool call, a failed model call and the run it ended carry an error
 * status. Ids are derived from the trace id, so an export is deterministic. A tool call that ran a
 * loop of its own (a subagent, s12) has that loop's trace beside this one (`childTraceOf`): its
 * runs go under the call's span, in the same trace, and the call's span carries their tokens.
 */
import { createHash } from "node:crypto";
import type { ErrorRecord, IterationRecord, ResultRecord } from "../trace-record.ts";
import { childTraceOf, type LoadedTrace } from "./read-trace.ts";

/** One OTLP attribute: a key and a typed value. */
export type Attribute = {
  key: string;
  value: { stringValue: string } | { intValue: string } | { arrayValue: { values: { stringValue: string }[] } };
};

/** One span in OTLP/JSON form. */
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** 1 internal, 3 client. */
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Attribute[];
  /** code 2 marks an error. */
  status: { code: number; message?: string };
}

/** The OTLP/JSON document for a trace (`resourceSpans`, as an OTLP collector accepts it). */
export function toOtlp(trace: LoadedTrace, agentName = "harness-course"): { resourceSpans: unknown[] } {
  return {
    resourceSpans: [
      {
        resource: { attributes: [str("service.name", agentName)] },
        scopeSpans: [
          {
            scope: { name: "@harness/s04-tracing", version: "0.1.0" },
            spans: traceSpans(trace, hex(trace.id, 32), agentName),
          },
        ],
      },
    ],
  };
}

/** The spans of a trace's runs, in the OTLP trace `traceId`, its run spans under `parentSpanId` when given. */
function traceSpans(trace: LoadedTrace, traceId: string, agentName: string, parentSpanId?: string): OtlpSpan[] {
  const spans: OtlpSpan[] = [];
  const runs = [...new Set(trace.records.map((r) => r.run))];
  for (const run of runs) {
    const its = trace.records.filter((r): r is IterationRecord => r.type === "iteration" && r.run === run);
    const result = trace.records.find((r): r is ResultRecord => r.type === "result" && r.run === run);
    const error = trace.records.find((r): r is ErrorRecord => r.type === "error" && r.run === run);
    if (its.length === 0 && !error) continue; // a result alone has no times to draw
    const runSpanId = hex(`${trace.id}/run/${run}`, 16);
    const runStart = Date.parse(its[0]?.startedAt ?? error?.startedAt ?? "");
    // the latest of its children and its last record, so the run holds everything under it
    const runEnd = Math.max(...its.map(iterationEnd), ...[result, error].map((r) => (r ? Date.parse(r.at) : runStart)));
    const model = its[0]?.request.model ?? error?.request.model ?? "";
    spans.push({
      traceId,
      spanId: runSpanId,
      ...(parentSpanId ? { parentSpanId } : {}),
      name: `invoke_agent ${agentName}`,
      kind: 1,
      startTimeUnixNano: nanos(runStart),
      endTimeUnixNano: nanos(Math.max(runEnd, runStart)),
      attributes: [
        str("gen_ai.operation.name", "invoke_agent"),
        str("gen_ai.provider.name", "anthropic"),
        str("gen_ai.agent.name", agentName),
        str("gen_ai.conversation.id", trace.id),
        str("gen_ai.request.model", model),
        ...(result
          ? [
              str("harness.stop_reason", result.result.stopReason),
              int("gen_ai.usage.input_tokens", result.result.usage.inputTokens),
              int("gen_ai.usage.output_tokens", result.result.usage.outputTokens),
            ]
          : []),
        ...(error ? [str("error.type", "_OTHER")] : []),
      ],
      status: result
        ? { code: 0 }
        : { code: 2, message: error ? firstLine(error.message) : "the run has no result record" },
    });
    for (const it of its) {
      const start = Date.parse(it.startedAt);
      spans.push({
        traceId,
        spanId: hex(`${trace.id}/chat/${run}/${it.turn}`, 16),
        parentSpanId: runSpanId,
        name: `chat ${it.request.model}`,
        kind: 3,
        startTimeUnixNano: nanos(start),
        endTimeUnixNano: nanos(start + it.timings.modelMs),
        attributes: [
          str("gen_ai.operation.name", "chat"),
          str("gen_ai.provider.name", "anthropic"),
          str("gen_ai.request.model", it.request.model),
          int("gen_ai.request.max_tokens", it.request.max_tokens),
          str("gen_ai.response.id", it.response.id),
          str("gen_ai.response.model", it.response.model),
          strings("gen_ai.response.finish_reasons", it.response.stopReason ? [it.response.stopReason] : []),
          int("gen_ai.usage.input_tokens", it.response.usage.inputTokens),
          int("gen_ai.usage.output_tokens", it.response.usage.outputTokens),
          str("gen_ai.output.messages", JSON.stringify([{ role: "assistant", content: it.response.content }])),
        ],
        status: { code: 0 },
      });
      for (const call of it.toolCalls) {
        const toolSpanId = hex(`${trace.id}/tool/${call.id}`, 16);
        const child = childTraceOf(trace, call.id);
        const below = child ? traceSpans(child, traceId, agentName, toolSpanId) : [];
        spans.push({
          traceId,
          spanId: toolSpanId,
          parentSpanId: runSpanId,
          name: `execute_tool ${call.name}`,
          kind: 1,
          startTimeUnixNano: nanos(start + call.startOffsetMs),
          endTimeUnixNano: nanos(start + call.startOffsetMs + call.durationMs),
          attributes: [
            str("gen_ai.operation.name", "execute_tool"),
            str("gen_ai.tool.name", call.name),
            str("gen_ai.tool.type", "function"),
            str("gen_ai.tool.call.id", call.id),
            str("gen_ai.tool.call.arguments", JSON.stringify(call.input)),
            str("gen_ai.tool.call.result", call.result),
            ...(call.isError ? [str("error.type", "tool_error")] : []),
            ...(child ? usageOf(child) : []),
          ],
          status: call.isError ? { code: 2, message: firstLine(call.result) } : { code: 0 },
        });
        spans.push(...below);
      }
    }
    if (error) {
      // the model call that failed: a chat span with an error status
      spans.push({
        traceId,
        spanId: hex(`${trace.id}/chat/${run}/${error.turn}`, 16),
        parentSpanId: runSpanId,
        name: `chat ${error.request.model}`,
        kind: 3,
        startTimeUnixNano: nanos(Date.parse(error.startedAt)),
        endTimeUnixNano: nanos(Math.max(Date.parse(error.at), Date.parse(error.startedAt))),
        attributes: [
          str("gen_ai.operation.name", "chat"),
          str("gen_ai.provider.name", "anthropic"),
          str("gen_ai.request.model", error.request.model),
          int("gen_ai.request.max_tokens", error.request.max_tokens),
          str("error.type", "_OTHER"),
        ],
        status: { code: 2, message: firstLine(error.message) },
      });
    }
  }
  return spans;
}

/** The tokens of every model call in a trace, and in the traces of the loops its calls ran. */
function usageOf(trace: LoadedTrace): Attribute[] {
  const total = { inputTokens: 0, outputTokens: 0 };
  const add = (one: LoadedTrace): void => {
    for (const it of one.records) {
      if (it.type !== "iteration") continue;
      total.inputTokens += it.response.usage.inputTokens;
      total.outputTokens += it.response.usage.outputTokens;
      for (const call of it.toolCalls) {
        const child = childTraceOf(one, call.id);
        if (child) add(child);
      }
    }
  };
  add(trace);
  return [int("gen_ai.usage.input_tokens", total.inputTokens), int("gen_ai.usage.output_tokens", total.outputTokens)];
}

function iterationEnd(it: IterationRecord): number {
  const start = Date.parse(it.startedAt);
  return start + Math.max(it.timings.modelMs, ...it.toolCalls.map((c) => c.startOffsetMs + c.durationMs));
}

function hex(seed: string, length: number): string {
  return createHash("sha256").update(seed).digest("hex").slice(0, length);
}

function nanos(ms: number): string {
  return (BigInt(Math.round(ms * 1000)) * 1000n).toString();
}

function str(key: string, value: string): Attribute {
  return { key, value: { stringValue: value } };
}

function int(key: string, value: number): Attribute {
  return { key, value: { intValue: String(Math.round(value)) } };
}

function strings(key: string, values: string[]): Attribute {
  return { key, value: { arrayValue: { values: values.map((v) => ({ stringValue: v })) } } };
}

function firstLine(text: string): string {
  return text.split("\n")[0];
}
