/**
 * The context window as one seam the loop calls, `fit`, and one it sends through, `send`, both
 * built by main.ts. Before each model call `fit` clears old tool results above the first
 * threshold and summarises the history above the second. `send` is the model call wrapped: when
 * the API still refuses the history as too long, it takes on the window the refusal names (naming
 * none, the refused request's size), says so once, summarises and sends again. Each response is
 * measured as the window hears the loop's events (`observe`); what happens to the context is told
 * as `context` events.
 *
 * Three modes: `client` (this chapter's mechanism), `server` (the API's context management, asked
 * for with each request), `off` (nothing: the history grows until the API refuses it).
 */
import type {
  Message,
  MessageCreateParamsNonStreaming,
  MessageParam,
  Tool,
} from "@anthropic-ai/sdk/resources/messages";
import type { SendTurn } from "@harness/s03-streaming";
import type { ModelErrorEvent } from "@harness/s04-tracing";
import type { Emit, LoopEvent } from "@harness/shared";
import { clearOldResults } from "./compaction/clear-old-results.ts";
import { compactHistory } from "./compaction/compact-history.ts";
import { type ContextBudget, type ContextLimits, contextBudgetFor, contextLimits } from "./context-budget.ts";
import { ContextMeter, type ContextSize, estimateTokens } from "./measure-context.ts";
import { type PromptTooLong, promptTooLong } from "./prompt-too-long.ts";
import { serverContextManagement } from "./server-context-management.ts";

/** Who keeps the context inside the window. */
export type CompactionMode = "client" | "server" | "off";

/** Every mode, in the order `--help` lists them. */
export const COMPACTION_MODES: readonly CompactionMode[] = ["client", "server", "off"];

/** True when `value` names a mode. */
export function isCompactionMode(value: unknown): value is CompactionMode {
  return COMPACTION_MODES.includes(value as CompactionMode);
}

/** Compactions that may fail in a row before the loop stops with `context_overflow`. */
export const MAX_COMPACTION_FAILURES = 3;

/** Output tokens a summary may take, at most (less when the window's reserve is smaller). */
export const SUMMARY_MAX_TOKENS = 4096;

/** What happened to the context. */
export type ContextChange =
  /** A response measured the context. */
  | { kind: "measured"; size: ContextSize }
  /** Old tool results were cleared. */
  | { kind: "cleared"; results: number; before: number; after: number }
  /** The history was summarised: `summarised` messages became a summary, `kept` stayed. */
  | { kind: "compacted"; why: CompactionTrigger; summarised: number; kept: number; before: number; after: number }
  /**
   * A refusal showed the window is smaller than set: from now on it is `size.window` tokens, not
   * `was`; `named` when the refusal named it, else it is the refused request's size.
   */
  | { kind: "window"; was: number; named: boolean; size: ContextSize }
  /** A compaction failed; `failures` in a row so far. */
  | { kind: "compaction_failed"; why: CompactionTrigger; reason: string; failures: number }
  /** The server compacted the conversation: its response opens with a `compaction` block. */
  | { kind: "server_compacted" };

/** The event s08 adds: the context changed; `messages` is the history as it is now (summarised in place). */
export type ContextEvent = { type: "context"; change: ContextChange; messages: readonly MessageParam[] };

/** Why a compaction ran: over the threshold, refused by the API, or asked for (`/compact`). */
export type CompactionTrigger = "threshold" | "too_long" | "by_hand";

/** How a loop stops when the window cannot be kept: the history does not fit, or Ctrl-C. */
export type Unfit = "context_overflow" | "aborted";

/** Thrown by the window's `send` when a refused history could not be made to fit: the loop ends with `context_overflow`. */
export class ContextOverflow extends Error {
  override name = "ContextOverflow";
}

/** How a window is set up. */
export interface ContextWindowOptions {
  /** How a turn reaches the model (s03's `sendStreamed`, or s09's adapter): the loop's calls and the summaries. */
  send: SendTurn;
  /** The model the window is measured for. */
  model: string;
  /** The tools the loop offers, until its first request says (a summary sent before it carries them). */
  tools?: Tool[];
  /** Who keeps the context small (default `client`). */
  mode?: CompactionMode;
  /** The window in tokens, overriding the model's (`--context-window`). */
  contextWindow?: number;
  /** Told what happens to the context (`context`), and of a refused call and its resend. */
  emit?: Emit<ContextEvent | ModelErrorEvent | LoopEvent>;
  /** Reads a "too long" refusal off an error (default: the Messages API's, `promptTooLong`). */
  tooLong?: (error: unknown) => PromptTooLong | null;
  /** One line for an error that failed a summary call (default: its message's first line). */
  describeError?: (error: unknown) => string;
}

/** Keeps a session's history inside the model's window. */
export class ContextWindow {
  private budget: ContextBudget;
  private meter: ContextMeter;
  private readonly mode: CompactionMode;
  private failures = 0; // compactions failed in a row, in this run
  private shape: { system: unknown; tools: Tool[] }; // the last request's, for estimates and summaries
  private history: readonly MessageParam[] = []; // the last request's: a response measures it
  private turnNumber = 0; // the loop's call in progress: a resend is the same turn

  constructor(private readonly options: ContextWindowOptions) {
    this.mode = options.mode ?? "client";
    this.budget = contextBudgetFor(options.model, options.contextWindow);
    this.meter = this.meterFor(this.budget);
    this.shape = { system: "", tools: options.tools ?? [] };
  }

  /** The thresholds in tokens. */
  get limits(): ContextLimits {
    return contextLimits(this.budget);
  }

  /** How full the context is now. */
  size(messages: readonly MessageParam[]): ContextSize {
    return this.meter.size(messages);
  }

  /**
   * The listener: hand it to the loop's `emit`. Each response measures the context; the end of a
   * run ends its count of failed compactions (the window lives for the session, the count is per run).
   */
  readonly observe = (event: { type: string }): void => {
    const heard = event as LoopEvent;
    if (heard.type === "model_call") this.turnNumber = heard.turnNumber;
    if (heard.type === "turn") this.measure(heard.response, this.history);
    if (heard.type === "end") this.failures = 0;
  };

  /**
   * Before a model call, on the request the loop is about to send (its history is changed in
   * place): above the first threshold clear old tool results, above the second summarise; in
   * `server` mode, ask the server to. Returns how the loop must stop, or `null` to go on.
   */
  async fit(request: MessageCreateParamsNonStreaming, signal: AbortSignal): Promise<Unfit | null> {
    const messages = request.messages;
    this.shape = { system: request.system, tools: (request.tools ?? []) as Tool[] };
    this.history = messages;
    if (this.mode === "server") Object.assign(request, serverContextManagement(this.limits));
    if (this.mode !== "client") return null;
    const before = this.meter.size(messages).tokens;
    if (before <= this.limits.clearAt) return null;
    const cleared = clearOldResults(messages);
    if (cleared.results > 0) {
      this.meter.rewritten(messages);
      const after = this.meter.size(messages).tokens;
      this.tell({ kind: "cleared", results: cleared.results, before, after }, messages);
    }
    if (this.meter.size(messages).tokens <= this.limits.summariseAt) return null;
    return this.compact(messages, "threshold", signal);
  }

  /**
   * The model call, kept inside the window: a "too long" refusal (the Messages API's, or the
   * adapter's reading of another provider's) is summarised once and sent again.
   * Contract: as `SendTurn`; a history that still does not fit throws `ContextOverflow`.
   */
  readonly send: SendTurn = async (request, signal, emit) => {
    try {
      return await this.options.send(request, signal, emit);
    } catch (error) {
      const refusal = this.tooLong(error);
      if (this.mode === "off" || refusal === null) throw error;
      this.options.emit?.({ type: "model_error", error }); // the refused call, in the trace
      // the window is the one the refusal names; naming none, it is smaller than what was refused
      const refused = this.meter.size(request.messages).tokens;
      this.shrinkTo(refusal.maximum ?? refused, request.messages, refusal.maximum !== undefined);
      const unsent = await this.compact(request.messages, "too_long", signal);
      if (unsent === "aborted") return null;
      if (unsent) throw new ContextOverflow("the history does not fit the context window, even summarised");
      this.options.emit?.({ type: "model_call", turnNumber: this.turnNumber, request }); // the same turn, sent again
      try {
        return await this.options.send(request, signal, emit);
      } catch (again) {
        if (this.tooLong(again) === null) throw again;
        this.options.emit?.({ type: "model_error", error: again });
        throw new ContextOverflow("the API refused the history as too long, even summarised", { cause: again });
      }
    }
  };

  /**
   * Summarise `messages` now. Returns how the loop must stop, or `null` to go on.
   * Contract: a failure leaves the history as it was; after `MAX_COMPACTION_FAILURES` in a row, or
   * one after the API refused the history, the answer is `context_overflow`.
   */
  async compact(
    messages: MessageParam[],
    why: CompactionTrigger,
    signal: AbortSignal,
    instructions?: string,
  ): Promise<Unfit | null> {
    const before = this.meter.size(messages).tokens;
    const outcome = await compactHistory(this.options.send, messages, {
      model: this.options.model,
      tools: this.shape.tools,
      signal,
      instructions,
      maxTokens: Math.min(SUMMARY_MAX_TOKENS, this.budget.outputReserve),
      tailTokens: why === "by_hand" ? 0 : this.limits.tail,
      requestTokens: this.limits.usable, // a summary request must fit the window too
      tooLong: this.tooLong,
      describeError: this.options.describeError,
    });
    if (outcome.kind === "aborted") return "aborted";
    if (outcome.kind === "compacted") {
      this.failures = 0;
      this.meter.rewritten(messages);
      const { summarised, kept } = outcome;
      const after = this.meter.size(messages).tokens;
      this.tell({ kind: "compacted", why, summarised, kept, before, after }, messages);
      return null;
    }
    if (why !== "by_hand") this.failures++;
    this.tell({ kind: "compaction_failed", why, reason: outcome.reason, failures: this.failures }, messages);
    return why === "too_long" || this.failures >= MAX_COMPACTION_FAILURES ? "context_overflow" : null;
  }

  /** A response arrived (and is in `messages`): its usage measures the context. */
  private measure(response: Message, messages: readonly MessageParam[]): void {
    this.meter.measure(response.usage, messages.length);
    const blocks = response.content as readonly { type: string }[];
    if (blocks.some((block) => block.type === "compaction")) this.tell({ kind: "server_compacted" }, messages);
    this.tell({ kind: "measured", size: this.meter.size(messages) }, messages);
  }

  private tell(change: ContextChange, messages: readonly MessageParam[]): void {
    this.options.emit?.({ type: "context", change, messages });
  }

  /** Take on a window of `maximum` tokens when it is smaller than the window's, and say so (once: the next is not smaller). */
  private shrinkTo(maximum: number, messages: readonly MessageParam[], named: boolean): void {
    const was = this.budget.window;
    if (maximum >= was) return;
    this.budget = contextBudgetFor(this.options.model, maximum);
    this.meter = this.meterFor(this.budget);
    this.tell({ kind: "window", was, named, size: this.meter.size(messages) }, messages);
  }

  /** The reader of "too long" refusals (default: the Messages API's). */
  private readonly tooLong = (error: unknown): PromptTooLong | null => (this.options.tooLong ?? promptTooLong)(error);

  private meterFor(budget: ContextBudget): ContextMeter {
    return new ContextMeter(budget, (messages) => estimateTokens([this.shape.system, this.shape.tools, messages]));
  }
}
