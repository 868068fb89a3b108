/**
 * The stop-reason table: why a loop stops, or `null` when it goes on.
 *
 * Tool blocks decide whether the loop continues; the provider's stop reason labels why it
 * stops. The one exception is a turn the provider cut short or refused: its tool calls may be
 * incomplete or unwanted, so they never run.
 */
import type { AgentTurn } from "./agent-turn.ts";

/** How a loop ended. Later chapters add their own results beside these three. */
export type LoopStopReason = "final_answer" | "max_tokens" | "max_turns";

/**
 * Decide what one turn means for the loop.
 *
 * Returns the loop result when the loop must stop after this turn, or `null` when it goes on
 * (run the tool calls, or, for `pause_turn` with none, send the history again as it is).
 * Contract: never throws; a stop reason this code has never seen ends the loop as an answer
 * unless the turn asks for tools.
 */
export function stopReasonFor(turn: AgentTurn): Exclude<LoopStopReason, "max_turns"> | null {
  switch (turn.providerStopReason) {
    case "max_tokens": // cut short: a tool_use block may hold half its input
    case "model_context_window_exceeded": // the same cut, at the context window
      return "max_tokens";
    case "refusal": // the model declined; nothing from this turn runs
      return "final_answer";
    case "pause_turn": // a server tool paused the turn: resubmit, or run what it asked for
      return null;
    default: // tool_use, end_turn, stop_sequence, null, and anything new
      return turn.toolCalls.length > 0 ? null : "final_answer";
  }
}
