/**
 * What a loop returns: how it ended and what it cost. The same fields in every chapter, and the
 * same JSON on the CLI's `--json` line.
 */
import type { TokenUsage } from "./agent-turn.ts";
import type { LoopStopReason } from "./stop-reason-for.ts";

/** The result of one run of a loop. `R` widens as chapters add stop reasons (`aborted`, ...). */
export interface AgentLoopResult<R extends string = LoopStopReason> {
  /** How the loop ended (see the stop-reason table). */
  stopReason: R;
  /** Model calls made. */
  turns: number;
  /** Tool calls run (including those answered with an error). */
  toolCalls: number;
  /** The text of the last turn; partial when `stopReason` is `max_tokens`. */
  finalText: string;
  /** The provider's stop reason on the last turn, as sent (`null` when there was no turn). */
  providerStopReason: string | null;
  /** Tokens summed over every model call. */
  usage: TokenUsage;
}

/** Add one turn's usage to a running total; a cache count is in the total once a turn has one. */
export function addUsage(total: TokenUsage, turn: TokenUsage): TokenUsage {
  const sum = (a?: number, b?: number) => (a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0));
  const read = sum(total.cacheReadInputTokens, turn.cacheReadInputTokens);
  const written = sum(total.cacheCreationInputTokens, turn.cacheCreationInputTokens);
  return {
    inputTokens: total.inputTokens + turn.inputTokens,
    outputTokens: total.outputTokens + turn.outputTokens,
    ...(read === undefined ? {} : { cacheReadInputTokens: read }),
    ...(written === undefined ? {} : { cacheCreationInputTokens: written }),
  };
}
