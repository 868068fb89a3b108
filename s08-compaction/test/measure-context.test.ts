import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { describe, expect, it } from "vitest";
import { ContextMeter, estimateTokens, usageTokens } from "../src/measure-context.ts";

const budget = { window: 10_000, outputReserve: 2_000 };
const estimate = (messages: readonly unknown[]) => estimateTokens(["system", [], messages]);

describe("usageTokens", () => {
  it("adds what was read, written to the cache, read from the cache, and written", () => {
    expect(
      usageTokens({
        input_tokens: 10,
        cache_creation_input_tokens: 200,
        cache_read_input_tokens: 3000,
        output_tokens: 4,
      }),
    ).toBe(3214);
  });

  it("reads a missing or null count as none", () => {
    expect(usageTokens({ input_tokens: 7, output_tokens: 1, cache_read_input_tokens: null })).toBe(8);
    expect(usageTokens(undefined)).toBe(0);
  });
});

describe("ContextMeter", () => {
  const history: MessageParam[] = [{ role: "user", content: "hello" }];

  it("estimates the whole history before any response", () => {
    const meter = new ContextMeter(budget, estimate);
    expect(meter.size(history)).toEqual({ tokens: estimate(history), usable: 8000, window: 10_000, estimated: true });
  });

  it("takes a response's usage as the measure, and estimates only what came after it", () => {
    const meter = new ContextMeter(budget, estimate);
    const messages: MessageParam[] = [...history, { role: "assistant", content: "hi" }];
    meter.measure({ input_tokens: 900, cache_read_input_tokens: 100, output_tokens: 20 }, messages.length);
    expect(meter.size(messages)).toMatchObject({ tokens: 1020, estimated: false });
    const prompt: MessageParam = { role: "user", content: "x".repeat(400) };
    messages.push(prompt);
    expect(meter.size(messages)).toMatchObject({ tokens: 1020 + estimateTokens([prompt]), estimated: true });
  });

  it("takes a response without usage (some servers send none) as no measure: the estimate goes on", () => {
    const meter = new ContextMeter(budget, estimate);
    const messages: MessageParam[] = [...history, { role: "assistant", content: "hi" }];
    meter.measure({ input_tokens: 0, output_tokens: 0 }, messages.length);
    expect(meter.size(messages)).toEqual({ tokens: estimate(messages), usable: 8000, window: 10_000, estimated: true });
  });

  it("starts again from an estimate when the history was rewritten or replaced by a shorter one", () => {
    const meter = new ContextMeter(budget, estimate);
    const messages: MessageParam[] = [
      ...history,
      { role: "assistant", content: "hi" },
      { role: "user", content: "go" },
    ];
    meter.measure({ input_tokens: 5000, output_tokens: 1 }, 3);
    messages.splice(0, 3, { role: "user", content: "summary" });
    expect(meter.size(messages)).toMatchObject({ tokens: estimate(messages), estimated: true });
  });
});
