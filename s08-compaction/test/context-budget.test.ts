import { describe, expect, it } from "vitest";
import {
  CONTEXT_WINDOWS,
  contextBudgetFor,
  contextLimits,
  DEFAULT_CONTEXT_BUDGET,
  RESERVE_SHARE,
  THRESHOLDS,
} from "../src/context-budget.ts";

describe("contextBudgetFor", () => {
  it("reads a Claude model's window from the table, and a model it does not know from the default", () => {
    expect(contextBudgetFor("claude-sonnet-5-5")).toEqual({ window: 200_000, outputReserve: 20_000 });
    expect(CONTEXT_WINDOWS[0].prefix).toBe("claude-");
    expect(contextBudgetFor("qwen2.5-coder:7b")).toEqual(DEFAULT_CONTEXT_BUDGET);
  });

  it("takes a given window over the model's, keeping at most a fifth of it for the answer", () => {
    expect(contextBudgetFor("claude-sonnet-5-5", 4000)).toEqual({ window: 4000, outputReserve: 4000 * RESERVE_SHARE });
    expect(contextBudgetFor("claude-sonnet-5-5", 1_000_000)).toEqual({ window: 1_000_000, outputReserve: 20_000 });
  });
});

describe("contextLimits", () => {
  it("puts the thresholds at their shares of the window less the reserve, clearing before summarising", () => {
    const limits = contextLimits({ window: 4000, outputReserve: 800 });
    expect(limits).toEqual({
      usable: 3200,
      clearAt: 3200 * THRESHOLDS.clear,
      summariseAt: 3200 * THRESHOLDS.summarise,
      tail: 3200 * THRESHOLDS.tail,
    });
    expect(limits.clearAt).toBeLessThan(limits.summariseAt);
    expect(limits.tail).toBeLessThan(limits.clearAt);
  });
});
