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
});
