/**
 * s10's options, and what they build: `--prompt-cache on|off` puts the cache breakpoints on each
 * request of the Messages format or leaves every request unmarked; `--cache-ttl 5m|1h` says how
 * long the server keeps a prefix. After each answer a line says how much of the run's input was
 * read from the cache, and what the session has cost at the model's list prices, with the cache
 * and without it.
 */
import type { CliOptions, ExtraOption } from "@harness/cli";
import type { CacheMeter } from "./cache-meter.ts";
import { costOf, listPricesFor, type TokenCounts } from "./list-prices.ts";
import type { CacheTtl } from "./place-breakpoints.ts";

/** Whether the breakpoints go on, and how long the cache keeps a prefix. */
export const CACHE_FLAGS: readonly ExtraOption[] = [
  {
    name: "prompt-cache",
    type: "string",
    help: "--prompt-cache M    cache breakpoints on every request: on, off (default on)",
  },
  {
    name: "cache-ttl",
    type: "string",
    help: "--cache-ttl T       how long the cache keeps a prefix: 5m, 1h (default 5m; 1h costs more to write)",
  },
];

/** What s10 adds to the command line, read from its options. */
export interface CacheSettings {
  /** `--prompt-cache on` (the default). */
  on: boolean;
  ttl: CacheTtl;
}

/** `--prompt-cache` and `--cache-ttl`, checked. Contract: a bad one throws one line. */
export function readCacheSettings({ extra }: CliOptions): CacheSettings {
  const mode = extra["prompt-cache"] ?? "on";
  if (mode !== "on" && mode !== "off") throw new Error(`--prompt-cache: "${mode}" is not on or off`);
  const ttl = extra["cache-ttl"] ?? "5m";
  if (ttl !== "5m" && ttl !== "1h") throw new Error(`--cache-ttl: "${ttl}" is not a lifetime; use 5m or 1h`);
  return { on: mode === "on", ttl };
}

/** The line after each answer: what the run read from the cache, and the session's cost so far. */
export function cacheLines(meter: CacheMeter, note: (line: string) => void, how: { model: string; ttl: CacheTtl }) {
  return {
    /** After each answer: the line, unless the run made no model call. */
    afterRun(): void {
      const run = meter.sinceLastRun();
      if (run.input + run.read + run.written === 0) return; // no answer this time
      note(describeCache(run, meter.session, how));
    },
  };
}

/** One line: the run's reads and writes, and the session's cost at `model`'s list prices with and without the cache. */
export function describeCache(run: TokenCounts, session: TokenCounts, how: { model: string; ttl: CacheTtl }): string {
  const n = (value: number) => value.toLocaleString("en-US");
  const total = run.input + run.read + run.written;
  const share = Math.round((100 * run.read) / total);
  const line = `cache: read ${n(run.read)} of ${n(total)} input tokens (${share}%), wrote ${n(run.written)}`;
  const prices = listPricesFor(how.model);
  if (!prices) return `${line} · no list prices for ${how.model}: tokens only`;
  const cost = costOf(session, prices, how.ttl);
  const dollars = (value: number) => `$${value.toFixed(4)}`;
  return `${line} · session ${dollars(cost.cached)}, ${dollars(cost.uncached)} without the cache (${prices.family} list prices)`;
}
