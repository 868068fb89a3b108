/**
 * The cache, measured. Each response says what its request read from the cache, wrote to it, and
 * paid full price for (`AgentTurn`'s usage: `cacheReadInputTokens`, `cacheCreationInputTokens`,
 * `inputTokens`, which counts neither). The meter is a listener on the loop's `turn` events: it
 * keeps those counts per turn, and adds them up for a run and for the session.
 *
 * Left out: calls that are not turns of the loop (s08's summary request) are not counted here.
 */
import type { Emit, LoopEvent, TokenUsage } from "@harness/shared";
import type { TokenCounts } from "./list-prices.ts";

/** One turn's usage as the meter counts it. */
export function countsOf(usage: TokenUsage): TokenCounts {
  return {
    input: usage.inputTokens,
    read: usage.cacheReadInputTokens ?? 0,
    written: usage.cacheCreationInputTokens ?? 0,
    output: usage.outputTokens,
  };
}

/** Counts added up. */
export function sumCounts(all: readonly TokenCounts[]): TokenCounts {
  const total: TokenCounts = { input: 0, read: 0, written: 0, output: 0 };
  for (const counts of all) {
    total.input += counts.input;
    total.read += counts.read;
    total.written += counts.written;
    total.output += counts.output;
  }
  return total;
}

/** Every turn's cache counts over a session. */
export class CacheMeter {
  /** Each turn's counts, in order. */
  readonly turns: TokenCounts[] = [];
  private counted = 0; // turns already in a run `sinceLastRun` returned

  /** The listener: hand it to the loop's `emit`. */
  readonly observe: Emit<{ type: string }> = (event) => {
    const heard = event as LoopEvent;
    if (heard.type === "turn") this.turns.push(countsOf(heard.turn.usage));
  };

  /** The whole session's counts. */
  get session(): TokenCounts {
    return sumCounts(this.turns);
  }

  /** The counts of the turns since the last call: one run's, after each answer. */
  sinceLastRun(): TokenCounts {
    const run = sumCounts(this.turns.slice(this.counted));
    this.counted = this.turns.length;
    return run;
  }
}
