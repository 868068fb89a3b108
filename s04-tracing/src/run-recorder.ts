/**
 * What the loop calls to record a run, so the loop itself changes by a few lines: a run recorder
 * numbers the run and holds the iteration in progress; an iteration recorder freezes the request
 * as sent, times the model call and each tool call, and keeps the response.
 *
 * Records are written from one place. An iteration is written when the next one starts or when
 * the run finishes, and every way out of the loop goes through `finish`, so no exit can leave an
 * iteration unwritten. A model call that fails writes its error record at once (the error then
 * leaves the loop). Either end closes the trace file. Without a trace writer every method still
 * works and writes nothing.
 */
import type { Message, MessageCreateParamsNonStreaming } from "@anthropic-ai/sdk/resources/messages";
import type { LoopObserver } from "@harness/s03-streaming";
import { type AgentLoopResult, AgentTurn, type ToolCall, type ToolResult } from "@harness/shared";
import type { SentRequest } from "./request-delta.ts";
import { TRACE_FORMAT, type TracedToolCall } from "./trace-record.ts";
import type { TraceWriter } from "./trace-writer.ts";

/** Records one run of the loop. */
export class RunRecorder {
  /** Which run of the trace this is. */
  readonly run: number;
  /** The iteration in progress: written when the next one starts or the run finishes. */
  private open?: IterationRecorder;

  constructor(private readonly trace?: TraceWriter) {
    this.run = trace ? trace.run++ : 0;
  }

  /** Write the iteration in progress, then start recording the next; `request` is frozen now, as sent. */
  iteration(turn: number, request: MessageCreateParamsNonStreaming): IterationRecorder {
    this.open?.write();
    this.open = new IterationRecorder(this.trace, this.run, turn, request);
    return this.open;
  }

  /**
   * Write the iteration in progress, then the run's result as its last record, and return it.
   * Contract: every exit of the loop returns through here.
   */
  finish<R extends string>(result: AgentLoopResult<R>): AgentLoopResult<R> {
    this.open?.write();
    this.open = undefined;
    this.trace?.write({
      type: "result",
      version: TRACE_FORMAT,
      traceId: this.trace.traceId,
      run: this.run,
      at: new Date().toISOString(),
      result,
    });
    this.trace?.close();
    return result;
  }
}

/** Records one iteration: a model call and the tool calls it asked for. */
export class IterationRecorder {
  private readonly startedAt = new Date();
  private readonly t0 = performance.now();
  private readonly sent?: SentRequest;
  private response?: Message;
  private written = false;
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
    // the history is changed after this call: keep the request exactly as it is sent
    this.sent = trace?.freeze(request);
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

  /**
   * Await the model call, timing it and keeping its response. A failure is written as an error
   * record, then rethrown; an interrupted call (null) leaves nothing to write.
   */
  async modelCall(call: Promise<Message | null>): Promise<Message | null> {
    try {
      this.response = (await call) ?? undefined;
      return this.response ?? null;
    } catch (error) {
      if (this.trace && this.sent && !this.written) {
        this.written = true;
        this.trace.writeWithRequest(
          {
            type: "error",
            version: TRACE_FORMAT,
            traceId: this.trace.traceId,
            run: this.run,
            turn: this.turn,
            startedAt: this.startedAt.toISOString(),
            at: new Date().toISOString(),
            message: error instanceof Error ? error.message : String(error),
          },
          this.sent,
        );
        this.trace.close(); // the run ends with this error
      }
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

  /**
   * Write the iteration as one line, once; it is on disk when this returns. An iteration whose
   * model call was interrupted has no response and writes nothing (the half-streamed turn is dropped).
   */
  write(): void {
    if (!this.trace || !this.sent || !this.response || this.written) return;
    this.written = true;
    const turn = AgentTurn.fromResponse(this.response);
    const order = turn.toolCalls.map((c) => c.id);
    const toolCalls = [...this.calls].sort((a, b) => order.indexOf(a.id) - order.indexOf(b.id));
    this.trace.writeWithRequest(
      {
        type: "iteration",
        version: TRACE_FORMAT,
        traceId: this.trace.traceId,
        run: this.run,
        turn: this.turn,
        startedAt: this.startedAt.toISOString(),
        response: {
          id: this.response.id,
          model: this.response.model,
          content: this.response.content,
          stopReason: turn.providerStopReason,
          usage: turn.usage,
        },
        toolCalls,
        timings: { ttftMs: Math.max(this.ttftMs, 0), modelMs: this.modelMs, toolMs: toolSpan(toolCalls) },
      },
      this.sent,
    );
  }
}

/** Milliseconds from the first tool call's start to the last one's end. */
function toolSpan(calls: TracedToolCall[]): number {
  if (calls.length === 0) return 0;
  const start = Math.min(...calls.map((c) => c.startOffsetMs));
  const end = Math.max(...calls.map((c) => c.startOffsetMs + c.durationMs));
  return end - start;
}
