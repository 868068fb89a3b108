/**
 * What the loop calls to record a run, so the loop itself changes by a few lines: a run recorder
 * numbers the run and writes its result; an iteration recorder snapshots the request as sent,
 * times the model call and each tool call, and writes the iteration (or the error that ended
 * it). Without a trace writer every method still works and writes nothing.
 */
import type { Message, MessageCreateParamsNonStreaming } from "@anthropic-ai/sdk/resources/messages";
import type { LoopObserver } from "@harness/s03-streaming";
import type { AgentLoopResult, AgentTurn, ToolCall, ToolResult } from "@harness/shared";
import type { IterationRecord, TracedToolCall } from "./trace-record.ts";
import type { TraceWriter } from "./trace-writer.ts";

/** Records one run of the loop. */
export class RunRecorder {
  /** Which run of the trace this is. */
  readonly run: number;

  constructor(private readonly trace?: TraceWriter) {
    this.run = trace ? trace.run++ : 0;
  }

  /** Start recording one iteration; `request` is snapshotted now, before the turn is appended. */
  iteration(turn: number, request: MessageCreateParamsNonStreaming): IterationRecorder {
    return new IterationRecorder(this.trace, this.run, turn, request);
  }

  /** Write the run's result as its last record, and return it. */
  finish<R extends string>(result: AgentLoopResult<R>): AgentLoopResult<R> {
    this.trace?.write({
      type: "result",
      traceId: this.trace.traceId,
      run: this.run,
      at: new Date().toISOString(),
      result,
    });
    return result;
  }
}

/** Records one iteration: a model call and the tool calls it asked for. */
export class IterationRecorder {
  private readonly startedAt = new Date();
  private readonly t0 = performance.now();
  private readonly sent: IterationRecord["request"];
  private ttftMs = -1;
  private modelMs = 0;
  private readonly starts = new Map<string, number>();
  private readonly calls: TracedToolCall[] = [];

  constructor(
    private readonly trace: TraceWriter | undefined,
    private readonly run: number,
    private readonly turn: number,
    request: MessageCreateParamsNonStreaming,
  ) {
    // the history is appended to after this call: keep the request exactly as it is sent
    this.sent = {
      model: request.model,
      max_tokens: request.max_tokens,
      system: typeof request.system === "string" ? request.system : JSON.stringify(request.system ?? ""),
      tools: (request.tools ?? []) as IterationRecord["request"]["tools"],
      messages: request.messages.map((m) => ({ ...m })),
    };
  }

  /** The observer, plus a note of when the first streamed event arrived. */
  observe(observer: LoopObserver): LoopObserver {
    return {
      ...observer,
      start: () => {
        if (this.ttftMs < 0) this.ttftMs = performance.now() - this.t0;
        observer.start?.();
      },
    };
  }

  /** Await the model call, timing it; a failure is written as an error record, then rethrown. */
  async modelCall(call: Promise<Message | null>): Promise<Message | null> {
    try {
      return await call;
    } catch (error) {
      this.trace?.write({
        type: "error",
        traceId: this.trace.traceId,
        run: this.run,
        turn: this.turn,
        startedAt: this.startedAt.toISOString(),
        at: new Date().toISOString(),
        request: this.sent,
        message: error instanceof Error ? error.message : String(error),
      });
      throw error;
    } finally {
      this.modelMs = performance.now() - this.t0;
    }
  }

  /** For runToolCalls: note when a call starts. */
  readonly toolStarted = (call: ToolCall): void => {
    this.starts.set(call.id, performance.now());
  };

  /** For runToolCalls: note a call's result and duration, then tell `next`. */
  toolFinished(next?: (call: ToolCall, result: ToolResult) => void): (call: ToolCall, result: ToolResult) => void {
    return (call, result) => {
      const start = this.starts.get(call.id) ?? performance.now();
      this.calls.push({
        id: call.id,
        name: call.name,
        input: call.input,
        result: result.content,
        isError: result.isError,
        startOffsetMs: start - this.t0,
        durationMs: performance.now() - start,
      });
      next?.(call, result);
    };
  }

  /** Write the iteration as one line; it is on disk when this returns. */
  write(response: Message, turn: AgentTurn): void {
    if (!this.trace) return;
    const order = turn.toolCalls.map((c) => c.id);
    const toolCalls = [...this.calls].sort((a, b) => order.indexOf(a.id) - order.indexOf(b.id));
    this.trace.write({
      type: "iteration",
      traceId: this.trace.traceId,
      run: this.run,
      turn: this.turn,
      startedAt: this.startedAt.toISOString(),
      request: this.sent,
      response: {
        id: response.id,
        model: response.model,
        content: response.content,
        stopReason: turn.providerStopReason,
        usage: turn.usage,
      },
      toolCalls,
      timings: { ttftMs: Math.max(this.ttftMs, 0), modelMs: this.modelMs, toolMs: toolSpan(toolCalls) },
    });
  }
}

/** Milliseconds from the first tool call's start to the last one's end. */
function toolSpan(calls: TracedToolCall[]): number {
  if (calls.length === 0) return 0;
  const start = Math.min(...calls.map((c) => c.startOffsetMs));
  const end = Math.max(...calls.map((c) => c.startOffsetMs + c.durationMs));
  return end - start;
}
