/**
 * What tokens cost, by model family: the Messages API's list prices in dollars per million tokens,
 * and what the cache does to the input price (a read is a tenth of it; a write is a quarter more
 * for five minutes' keeping, double for an hour's). A model the table does not know is counted in
 * tokens only: a guess at a price would be worse than none.
 *
 * Left out: batch and regional prices, long-context prices, other providers' prices.
 */
import type { CacheTtl } from "./place-breakpoints.ts";

/** A family's list prices, dollars per million tokens. */
export interface ListPrices {
  family: string;
  input: number;
  output: number;
}

/** The families, by model id; the first match wins. Prices as listed by Anthropic in 2026. */
export const LIST_PRICES: readonly (ListPrices & { match: RegExp })[] = [
  {
    family: "Claude Opus 4.1 and older",
    match: /^claude-(?:3-opus|opus-4-(?:0|1)\b|opus-4-2025)/,
    input: 15,
    output: 75,
  },
  { family: "Claude Opus", match: /^claude-opus-/, input: 5, output: 25 },
  { family: "Claude Sonnet", match: /^claude-(?:sonnet-|3-[57]-sonnet)/, input: 3, output: 15 },
  { family: "Claude Haiku", match: /^claude-haiku-/, input: 1, output: 5 },
  { family: "Claude Haiku 3.5", match: /^claude-3-5-haiku/, input: 0.8, output: 4 },
];

/** The input price, times: a cache read, and a cache write by how long it is kept. */
export const CACHE_PRICE_FACTORS = { read: 0.1, write: { "5m": 1.25, "1h": 2 } } as const;

/** Tokens of one call or of many, as the meter counts them. */
export interface TokenCounts {
  /** Input at the full price: neither read from the cache nor written to it. */
  input: number;
  /** Input read from the cache. */
  read: number;
  /** Input written to the cache. */
  written: number;
  output: number;
}

/** The list prices of `model`'s family, or `undefined` for a model the table does not know. */
export function listPricesFor(model: string): ListPrices | undefined {
  const row = LIST_PRICES.find((prices) => prices.match.test(model));
  return row && { family: row.family, input: row.input, output: row.output };
}

/** What `counts` cost in dollars, with the cache as it was used, and with no cache (every input token at full price). */
export function costOf(counts: TokenCounts, prices: ListPrices, ttl: CacheTtl): { cached: number; uncached: number } {
  const perToken = (dollars: number) => dollars / 1_000_000;
  const output = counts.output * perToken(prices.output);
  const input = perToken(prices.input);
  return {
    cached:
      counts.input * input +
      counts.read * input * CACHE_PRICE_FACTORS.read +
      counts.written * input * CACHE_PRICE_FACTORS.write[ttl] +
      output,
    uncached: (counts.input + counts.read + counts.written) * input + output,
  };
}
