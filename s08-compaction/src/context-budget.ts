/**
 * How much a model can read: its context window, the part kept free for its answer, and the two
 * thresholds this chapter acts on. Known models come from a table by id; `--context-window N`
 * overrides the window (the offline demo gives the scripted model a small one).
 */

/** A model's context window, and how much of it is kept for the answer. */
export interface ContextBudget {
  /** Tokens one call may hold at most: what is read and what is written. */
  window: number;
  /** Tokens kept free for the answer; the history may use the rest. */
  outputReserve: number;
}

/** Known models by id prefix, the first match wins. Claude models read 200,000 tokens (more with a beta). */
export const CONTEXT_WINDOWS: readonly (ContextBudget & { prefix: string })[] = [
  { prefix: "claude-", window: 200_000, outputReserve: 20_000 },
];

/**
 * A model the table does not know (a local model behind ANTHROPIC_BASE_URL, say): a window small
 * enough for most, so the harness compacts early rather than hears "prompt is too long" late.
 */
export const DEFAULT_CONTEXT_BUDGET: ContextBudget = { window: 32_000, outputReserve: 8_000 };

/** The share of a window given `--context-window` kept for the answer, at most the model's reserve. */
export const RESERVE_SHARE = 0.2;

/** Where this chapter acts, as shares of the usable tokens (the window less the reserve). */
export const THRESHOLDS = {
  /** Above this, old tool results are cleared. */
  clear: 0.5,
  /** Above this (after clearing), the history is summarised. */
  summarise: 0.8,
  /** The recent tail kept word for word beside a summary, at most. */
  tail: 0.25,
} as const;

/** A budget's thresholds in tokens. */
export interface ContextLimits {
  /** The window less the reserve: what the history, the system prompt and the tools may use. */
  usable: number;
  /** Clear old tool results above this many tokens. */
  clearAt: number;
  /** Summarise above this many tokens. */
  summariseAt: number;
  /** Keep at most this many tokens of recent history word for word beside a summary. */
  tail: number;
}

/**
 * The budget for `model`, or for a window of `window` tokens when one is given.
 * Contract: the reserve is never more than a fifth of a given window, so a small one stays usable.
 */
export function contextBudgetFor(model: string, window?: number): ContextBudget {
  const known = CONTEXT_WINDOWS.find((entry) => model.startsWith(entry.prefix)) ?? DEFAULT_CONTEXT_BUDGET;
  if (window === undefined) return { window: known.window, outputReserve: known.outputReserve };
  return { window, outputReserve: Math.min(known.outputReserve, Math.floor(window * RESERVE_SHARE)) };
}

/** The thresholds of a budget, in tokens. */
export function contextLimits(budget: ContextBudget): ContextLimits {
  const usable = budget.window - budget.outputReserve;
  return {
    usable,
    clearAt: Math.floor(usable * THRESHOLDS.clear),
    summariseAt: Math.floor(usable * THRESHOLDS.summarise),
    tail: Math.floor(usable * THRESHOLDS.tail),
  };
}
