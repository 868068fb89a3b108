/**
 * How full the context is. The provider counts tokens; the harness only estimates them. So the
 * size comes from each response's usage (what it read, cached or not, plus what it wrote, which
 * the next request carries), and only what was added since is estimated, at about four characters
 * a token. After the harness rewrites the history (clears, summarises) it is all estimated until
 * the next response measures it again.
 */
import type { Usage } from "@anthropic-ai/sdk/resources/messages";
import type { ContextBudget } from "./context-budget.ts";

/** How full the context is, as the REPL shows it. */
export interface ContextSize {
  /** Tokens the next request would carry. */
  tokens: number;
  /** The window less the output reserve. */
  usable: number;
  /** The model's whole window. */
  window: number;
  /** False when the last response measured it; true while it rests on an estimate. */
  estimated: boolean;
}

/**
 * The tokens a response's usage says the context held: the input, the cache written and the cache
 * read (each counted once, in one of the three), and the output, which the next request sends back.
 */
export function usageTokens(usage: Partial<Usage> | undefined): number {
  const count = (n: number | null | undefined) => (typeof n === "number" && n > 0 ? n : 0);
  return (
    count(usage?.input_tokens) +
    count(usage?.cache_creation_input_tokens) +
    count(usage?.cache_read_input_tokens) +
    count(usage?.output_tokens)
  );
}

/** An estimate of the tokens `value` takes as JSON: about four characters a token (the scripted model counts so). */
export function estimateTokens(value: unknown): number {
  return Math.ceil(JSON.stringify(value).length / 4);
}

/** The context's size over a run: measured by each response, estimated in between. */
export class ContextMeter {
  private measured = 0;
  private upTo = 0;
  private estimated = true;

  /** `estimate` sizes a whole history as a request would carry it (system prompt and tools included). */
  constructor(
    private readonly budget: ContextBudget,
    private readonly estimate: (messages: readonly unknown[]) => number,
  ) {}

  /**
   * A response arrived: its usage measures the first `count` messages (its own turn included). A
   * response without usage (some servers send none) measures nothing: the estimate goes on.
   */
  measure(usage: Partial<Usage> | undefined, count: number): void {
    const tokens = usageTokens(usage);
    if (tokens === 0) return;
    this.measured = tokens;
    this.upTo = count;
    this.estimated = false;
  }

  /** The history was rewritten: estimate all of it until a response measures it again. */
  rewritten(messages: readonly unknown[]): void {
    this.measured = this.estimate(messages);
    this.upTo = messages.length;
    this.estimated = true;
  }

  /** The tokens the next request would carry: the last measure, plus an estimate of what came after it. */
  size(messages: readonly unknown[]): ContextSize {
    // a history shorter than the measure was replaced (a caller compacted it): start from an estimate
    if (messages.length < this.upTo || this.upTo === 0) this.rewritten(messages);
    const added = messages.length > this.upTo ? estimateTokens(messages.slice(this.upTo)) : 0;
    return {
      tokens: this.measured + added,
      usable: this.budget.window - this.budget.outputReserve,
      window: this.budget.window,
      estimated: this.estimated || added > 0,
    };
  }
}
