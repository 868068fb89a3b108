import { describe, expect, it } from "vitest";
import { describeCache } from "../src/flags.ts";
import { CACHE_PRICE_FACTORS, costOf, listPricesFor } from "../src/list-prices.ts";

describe("listPricesFor", () => {
  it.each([
    ["claude-sonnet-5-5", "Claude Sonnet", 3],
    ["claude-sonnet-4-5-20250929", "Claude Sonnet", 3],
    ["claude-opus-4-7", "Claude Opus", 5],
    ["claude-opus-4-1-20250805", "Claude Opus 4.1 and older", 15],
    ["claude-opus-4-20250514", "Claude Opus 4.1 and older", 15],
    ["claude-haiku-4-5", "Claude Haiku", 1],
    ["claude-3-5-haiku-latest", "Claude Haiku 3.5", 0.8],
  ])("prices %s as %s", (model, family, input) => {
    expect(listPricesFor(model)).toMatchObject({ family, input });
  });

  it("knows no price for a model outside the table", () => {
    expect(listPricesFor("scripted-model")).toBeUndefined();
    expect(listPricesFor("gpt-5.5")).toBeUndefined();
  });
});

describe("costOf", () => {
  const prices = { family: "f", input: 3, output: 15 };
  const million = { input: 1_000_000, read: 1_000_000, written: 1_000_000, output: 1_000_000 };

  it("prices a read at a tenth of the input, a write at 1.25 times (5m) or twice (1h), every token at full price without the cache", () => {
    expect(CACHE_PRICE_FACTORS).toEqual({ read: 0.1, write: { "5m": 1.25, "1h": 2 } });
    expect(costOf(million, prices, "5m")).toEqual({ cached: 3 + 0.3 + 3.75 + 15, uncached: 9 + 15 });
    expect(costOf(million, prices, "1h").cached).toBeCloseTo(3 + 0.3 + 6 + 15);
  });
});

describe("describeCache", () => {
  const run = { input: 100, read: 900, written: 0, output: 50 };
  const session = { input: 1000, read: 900, written: 1000, output: 100 };

  it("says what the run read and wrote, and the session's cost with the cache and without", () => {
    expect(describeCache(run, session, { model: "claude-sonnet-5-5", ttl: "5m" })).toBe(
      "cache: read 900 of 1,000 input tokens (90%), wrote 0 · session $0.0085, $0.0102 without the cache (Claude Sonnet list prices)",
    );
  });

  it("counts tokens only for a model it has no prices for", () => {
    expect(describeCache(run, session, { model: "qwen3", ttl: "5m" })).toBe(
      "cache: read 900 of 1,000 input tokens (90%), wrote 0 · no list prices for qwen3: tokens only",
    );
  });
});
