/**
 * The trace as a listener on the loop's events: it holds the iteration in progress (the request
 * frozen as sent, the response, each tool call timed) and writes it as one line when the next
 * model call starts or the run ends. The loop does not know it is recorded.
 *
 * A run's records are written from three events only: `model_call` writes the iteration before it,
 * `model_error` writes the failed call at once, `end` writes the last iteration and then the result.
 * Every way out of a loop emits one of the last two, so no exit leaves an iteration unwritten.
 */
import type { Message, MessageCreateParamsNonStreaming } from "@anthropic-ai/sdk/resources/messages";
import type { StreamEvent } from "@harness/s03-streaming";
import { AgentTurn, type LoopEvent } from "@harness/shared";
import type { SentRequest } from "./request-delta.ts";
import { TRACE_FORMAT, type TracedToolCall } from "./trace-record.ts";
import type { TraceWriter } from "./trace-writer.ts";

/** The event s04's loop adds: a model call failed, and its error is about to leave the loop. */
export type ModelErrorEvent = { type: "model_error"; error: unknown };

/** The events a trace records. */
export type TracedEvent = LoopEvent | StreamEvent | ModelErrorEvent;

/** One model call and the tool calls it asked for, until it is written. */
interface OpenIteration {
  turn: number;
  startedAt: Date;
  t0: number;
  sent: SentRequest;
  response?: Message;
  ttftMs: number;
  modelMs: number;
  starts: Map<string, number>;
  calls: TracedToolCall[];
}

/** Records every run of a session into one trace. */
export class TraceRecorder {
  private run?: number; // the run in progress: set by its first event
  private open?: OpenIteration;

  constructor(private readonly trace: TraceWriter) {}

  /** The listener: hand it to the loop's `emit` (with `fanOut`, beside the view). */
  readonly record = (event: { type: string }): void => {
    const traced = event as TracedEvent;
    const now = performance.now();
    switch (traced.type) {
      case "model_call":
        this.start(traced.turnNumber, traced.request, now);
        return;
      case "stream_start":
        if (this.open && this.open.ttftMs < 0) this.open.ttftMs = now - this.open.t0;
        return;
      case "turn":
        if (this.open) Object.assign(this.open, { response: traced.response, modelMs: now - this.open.t0 });
        return;
      case "tool_call":
        this.open?.starts.set(traced.call.id, now);
        return;
      case "tool_result": {
        const { call, result } = traced;
        const start = this.open?.starts.get(call.id) ?? now;
        this.open?.calls.push({
          id: call.id,
          name: call.name,
          input: call.input,
          result: result.content,
          isError: result.isError,
          startOffsetMs: start - (this.open?.t0 ?? now),
          durationMs: now - start,
        });
        return;
      }
      case "model_error":
        this.failed(traced.error);
        return;
      case "end":
        this.writeOpen();
        this.trace.write({
          type: "result",
          version: TRACE_FORMAT,
          traceId: this.trace.traceId,
          run: this.runNumber(),
          at: new Date().toISOString(),
          result: traced.result,
        });
        this.endRun();
    }
  };

  /** Which run of the trace this is: a run's first event takes the next number. */
  private runNumber(): number {
    this.run ??= this.trace.run++;
    return this.run;
  }

  /** A model call starts: the iteration before it is written; the request is frozen now, as sent. */
  private start(turn: number, request: MessageCreateParamsNonStreaming, t0: number): void {
    this.writeOpen();
    this.runNumber();
    // the history changes after this call: keep the request exactly as it is sent
    const sent = this.trace.freeze(request);
    this.open = { turn, startedAt: new Date(), t0, sent, ttftMs: -1, modelMs: 0, starts: new Map(), calls: [] };
  }

  /** The model call failed: its request and the error, written at once. */
  private failed(error: unknown): void {
    const open = this.open;
    this.open = undefined;
    if (!open) return;
    this.trace.writeWithRequest(
      {
        type: "error",
        version: TRACE_FORMAT,
        traceId: this.trace.traceId,
        run: this.runNumber(),
        turn: open.turn,
        startedAt: open.startedAt.toISOString(),
        at: new Date().toISOString(),
        message: error instanceof Error ? error.message : String(error),
      },
      open.sent,
    );
    this.trace.close(); // the error may end the run: nothing stays open while the user reads it
  }

  /**
   * The run is over: the next event starts another, and the file is closed until then. The CLI
   * calls it after a run that threw (its last event was `model_error`, or none).
   */
  endRun(): void {
    this.open = undefined;
    this.run = undefined;
    this.trace.close();
  }

  /**
   * Write the iteration in progress as one line, once; it is on disk when this returns. One whose
   * model call was interrupted has no response and writes nothing (the half-streamed turn is dropped).
   */
  private writeOpen(): void {
    const open = this.open;
    this.open = undefined;
    if (!open?.response) return;
    const turn = AgentTurn.fromResponse(open.response);
    const order = turn.toolCalls.map((c) => c.id);
    const toolCalls = [...open.calls].sort((a, b) => order.indexOf(a.id) - order.indexOf(b.id));
    this.trace.writeWithRequest(
      {
        type: "iteration",
        version: TRACE_FORMAT,
        traceId: this.trace.traceId,
        run: this.runNumber(),
        turn: open.turn,
        startedAt: open.startedAt.toISOString(),
        response: {
          id: open.response.id,
          model: open.response.model,
          content: open.response.content,
          stopReason: turn.providerStopReason,
          usage: turn.usage,
        },
        toolCalls,
        timings: { ttftMs: Math.max(open.ttftMs, 0), modelMs: open.modelMs, toolMs: toolSpan(toolCalls) },
      },
      open.sent,
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
