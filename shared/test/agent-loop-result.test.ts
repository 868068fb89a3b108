import { describe, expect, it } from "vitest";
import { addUsage } from "../src/agent-loop-result.ts";

describe("addUsage", () => {
  it("adds one turn's tokens to the total without changing either", () => {
    const total = { inputTokens: 100, outputTokens: 20 };
    const turn = { inputTokens: 50, outputTokens: 7 };
    expect(addUsage(total, turn)).toEqual({ inputTokens: 150, outputTokens: 27 });
    expect(total).toEqual({ inputTokens: 100, outputTokens: 20 });
    expect(turn).toEqual({ inputTokens: 50, outputTokens: 7 });
  });

  it("sums cache counts once a turn has one, and leaves them out of a run that never used a cache", () => {
    const plain = { inputTokens: 10, outputTokens: 2 };
    expect(addUsage(plain, plain)).toEqual({ inputTokens: 20, outputTokens: 4 });
    const cached = { inputTokens: 5, outputTokens: 1, cacheReadInputTokens: 900 };
    expect(addUsage(plain, cached)).toEqual({ inputTokens: 15, outputTokens: 3, cacheReadInputTokens: 900 });
    const written = { inputTokens: 1, outputTokens: 1, cacheCreationInputTokens: 40 };
    expect(addUsage(addUsage(plain, cached), written)).toEqual({
      inputTokens: 16,
      outputTokens: 4,
      cacheReadInputTokens: 900,
      cacheCreationInputTokens: 40,
    });
  });
});
