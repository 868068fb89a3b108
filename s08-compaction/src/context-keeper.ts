/**
 * What the loop calls to keep its history inside the model's window, so the loop itself changes
 * by a few lines. Before each model call, `fit`: above the first threshold clear old tool results,
 * above the second summarise. After each response, `measure`. When the API still refuses the
 * history as too long, `compact` once, and the loop sends it again.
 *
 * Three modes: `client` (this chapter's mechanism), `server` (the API's context management, asked
 * for with each request), `off` (nothing: the history grows until the API refuses it).
 */
import type { Message, MessageParam, Tool } from "@anthropic-ai/sdk/resources/messages";
import { clearOldResults } from "./clear-old-results.ts";
import { compactHistory } from "./compact-history.ts";
import { type ContextBudget, type ContextLimits, contextBudgetFor, contextLimits } from "./context-budget.ts";
import { ContextMeter, type ContextSize, estimateTokens } from "./measure-context.ts";
import { type PromptTooLong, promptTooLong } from "./prompt-too-long.ts";
import type { SendTurn } from "./send-turn.ts";
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

/** What happened to the context, for the observer (the CLI prints it). */
export type ContextEvent =
  /** A response measured the context. */
  | { kind: "measured"; size: ContextSize }
  /** Old tool results were cleared. */
  | { kind: "cleared"; results: number; before: number; after: number }
  /** The history was summarised: `summarised` messages became a summary, `kept` stayed. */
  | { kind: "compacted"; why: CompactionTrigger; summarised: number; kept: number; before: number; after: number }
  /** A compaction failed; `failures` in a row so far. */
  | { kind: "compaction_failed"; why: CompactionTrigger; reason: string; failures: number }
  /** The server compacted the conversation: its response opens with a `compaction` block. */
  | { kind: "server_compacted" };

/** Why a compaction ran: over the threshold, refused by the API, or asked for (`/compact`). */
export type CompactionTrigger = "threshold" | "too_long" | "by_hand";

/** How the keeper is set up: the loop's own settings, and the mode. */
export interface ContextKeeperOptions {
  /** How a turn is sent (`sendTurnWith`): the loop's calls and the summaries go through it. */
  send: SendTurn;
  model: string;
  system: string;
  tools: Tool[];
  signal: AbortSignal;
  /** Who keeps the context small (default `client`). */
  mode?: CompactionMode;
  /** The window in tokens, overriding the model's (`--context-window`). */
  contextWindow?: number;
  /** Told what happens to the context. */
  onEvent?: (event: ContextEvent) => void;
  /** Reads a "too long" refusal off an error (default: the Messages API's, `promptTooLong`). */
  tooLong?: (error: unknown) => PromptTooLong | null;
}

/** Keeps one run's history inside the window. */
export class ContextKeeper {
  /** How the loop's calls and the summaries reach the model. */
  readonly send: SendTurn;
  /** What each request adds for the server: its context management in `server` mode, else nothing. */
  readonly serverSetting: Partial<ReturnType<typeof serverContextManagement>>;
  private budget: ContextBudget;
  private meter: ContextMeter;
  private readonly mode: CompactionMode;
  private failures = 0;
  private maximumUnknown = false; // the last refusal named no maximum

  constructor(private readonly options: ContextKeeperOptions) {
    this.budget = contextBudgetFor(options.model, options.contextWindow);
    this.mode = options.mode ?? "client";
    this.meter = this.meterFor(this.budget);
    this.send = options.send;
    this.serverSetting = this.mode === "server" ? serverContextManagement(this.limits) : {};
  }

  /** The thresholds in tokens. */
  get limits(): ContextLimits {
    return contextLimits(this.budget);
  }

  /** How full the context is now. */
  size(messages: readonly MessageParam[]): ContextSize {
    return this.meter.size(messages);
  }

  /** A response arrived (and is in `messages`): its usage measures the context. */
  measure(response: Message, messages: readonly MessageParam[]): void {
    this.meter.measure(response.usage, messages.length);
    const blocks = response.content as readonly { type: string }[];
    if (blocks.some((block) => block.type === "compaction")) this.options.onEvent?.({ kind: "server_compacted" });
    this.options.onEvent?.({ kind: "measured", size: this.meter.size(messages) });
  }

  /**
   * Before a model call: clear old tool results above the first threshold, then summarise above
   * the second. Returns how the loop must stop, or `null` to go on.
   */
  async fit(messages: MessageParam[]): Promise<"context_overflow" | "aborted" | null> {
    if (this.mode !== "client") return null;
    const before = this.meter.size(messages).tokens;
    if (before <= this.limits.clearAt) return null;
    const cleared = clearOldResults(messages);
    if (cleared.results > 0) {
      this.meter.rewritten(messages);
      const after = this.meter.size(messages).tokens;
      this.options.onEvent?.({ kind: "cleared", results: cleared.results, before, after });
    }
    if (this.meter.size(messages).tokens <= this.limits.summariseAt) return null;
    return this.compact(messages, "threshold");
  }

  /**
   * True when `error` is the API refusing the history as too long, and this keeper reacts to it.
   * The refusal names the model's real maximum: a smaller window than the keeper's is taken on. A
   * refusal that names none (another provider's) bounds it by the request that did not fit, at
   * the compaction that follows.
   */
  reactsTo(error: unknown): boolean {
    const refusal = (this.options.tooLong ?? promptTooLong)(error);
    if (this.mode === "off" || refusal === null) return false;
    this.maximumUnknown = refusal.maximum === undefined;
    if (refusal.maximum !== undefined) this.shrinkTo(refusal.maximum);
    return true;
  }

  /**
   * Summarise the history now. Returns how the loop must stop, or `null` to go on.
   * Contract: a failure leaves the history as it was; after `MAX_COMPACTION_FAILURES` in a row, or
   * one after the API refused the history, the answer is `context_overflow`.
   */
  async compact(
    messages: MessageParam[],
    why: CompactionTrigger,
    instructions?: string,
  ): Promise<"context_overflow" | "aborted" | null> {
    const { model, tools, signal } = this.options;
    const before = this.meter.size(messages).tokens;
    if (why === "too_long" && this.maximumUnknown) this.shrinkTo(before); // it did not fit: the window is smaller
    const outcome = await compactHistory(this.send, messages, {
      model,
      tools,
      signal,
      instructions,
      maxTokens: Math.min(SUMMARY_MAX_TOKENS, this.budget.outputReserve),
      tailTokens: this.limits.tail,
    });
    if (outcome.kind === "aborted") return "aborted";
    if (outcome.kind === "compacted") {
      this.failures = 0;
      this.meter.rewritten(messages);
      const { summarised, kept } = outcome;
      this.options.onEvent?.({
        kind: "compacted",
        why,
        summarised,
        kept,
        before,
        after: this.meter.size(messages).tokens,
      });
      return null;
    }
    this.failures++;
    this.options.onEvent?.({ kind: "compaction_failed", why, reason: outcome.reason, failures: this.failures });
    return why === "too_long" || this.failures >= MAX_COMPACTION_FAILURES ? "context_overflow" : null;
  }

  /** Take on a window of `maximum` tokens when it is smaller than the keeper's. */
  private shrinkTo(maximum: number): void {
    if (maximum >= this.budget.window) return;
    this.budget = contextBudgetFor(this.options.model, maximum);
    this.meter = this.meterFor(this.budget);
  }

  private meterFor(budget: ContextBudget): ContextMeter {
    const { system, tools } = this.options;
    return new ContextMeter(budget, (messages) => estimateTokens([system, tools, messages]));
  }
}
