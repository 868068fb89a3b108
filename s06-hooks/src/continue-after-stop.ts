/**
 * A Stop hook that blocks sends the loop on, its reason as the next user message ("the tests
 * fail: fix them"). A hook that always blocks would keep the loop alive forever, so the loop goes
 * on at most MAX_STOP_HOOK_CONTINUATIONS times per prompt; after that the answer stands and the
 * user is told why. Hooks see `stop_hook_active: true` on every Stop after the first
 * continuation, as in Claude Code, and may give up sooner themselves. The loop's own turn budget
 * (`--max-turns`) still applies on top.
 */
import type { HookVerdict } from "./combine-hook-outcomes.ts";

/** How many times per prompt Stop hooks may send the loop on. */
export const MAX_STOP_HOOK_CONTINUATIONS = 3;

/** What the loop does once its Stop hooks have run. */
export type StopDecision =
  /** Go on: append `message` as a user message and call the model again. */
  | { kind: "continue"; message: string }
  /** Return the final answer; `notice` (when set) tells the user why a block was not followed. */
  | { kind: "stop"; notice?: string };

/**
 * Decide whether the loop goes on after its Stop hooks, given how many times they already sent
 * it on for this prompt.
 * Contract: never "continue" once `continuations` reaches MAX_STOP_HOOK_CONTINUATIONS, nor
 * when a hook asked to stop (`"continue": false`).
 */
export function continueAfterStop(verdict: HookVerdict, continuations: number): StopDecision {
  if (verdict.block === undefined || verdict.stop !== undefined) return { kind: "stop" };
  if (continuations >= MAX_STOP_HOOK_CONTINUATIONS) {
    return {
      kind: "stop",
      notice: `Stop hooks asked to go on ${continuations + 1} times for this prompt; the answer stands (the bound is ${MAX_STOP_HOOK_CONTINUATIONS}).`,
    };
  }
  return { kind: "continue", message: verdict.block };
}
