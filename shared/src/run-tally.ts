/**
 * What a run has done so far (its turns' usage, its tool calls, its last turn), and the result it
 * ends with. Every way out of a loop returns `tally.end(...)`, so the result is built in one place
 * and the listeners hear of every end.
 */
import { type AgentLoopResult, addUsage } from "./agent-loop-result.ts";
import type { AgentTurn } from "./agent-turn.ts";
import type { Emit, LoopEvent } from "./loop-event.ts";

/** A run's running totals. */
export interface RunTally {
  /** A model turn was read: its usage is added, and it is the last turn so far. */
  turn(turn: AgentTurn): void;
  /** Tool calls ran (answered with an error included). */
  ran(calls: number): void;
  /** The run ends now after `turns` model calls: its result, told to `emit` as `end`, and returned. */
  end<R extends string>(stopReason: R, turns: number): AgentLoopResult<R>;
}

/** A fresh tally, whose `end` tells `emit`. */
export function runTally(emit: Emit<LoopEvent>): RunTally {
  let usage = { inputTokens: 0, outputTokens: 0 };
  let toolCalls = 0;
  let last: AgentTurn | null = null;
  return {
    turn(turn) {
      last = turn;
      usage = addUsage(usage, turn.usage);
    },
    ran(calls) {
      toolCalls += calls;
    },
    end(stopReason, turns) {
      const result = {
        stopReason,
        turns,
        toolCalls,
        finalText: last?.text ?? "",
        providerStopReason: last?.providerStopReason ?? null,
        usage,
      };
      emit({ type: "end", result });
      return result;
    },
  };
}
