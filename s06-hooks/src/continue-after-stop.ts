/**
 * A Stop hook that blocks sends the loop on, its reason as the next user message ("the tests
 * fail: fix them"). It may do so once per prompt. The next time the model answers, the Stop hooks
 * run again with `stop_hook_active: true` (Claude Code's field, so a hook can give way); if they
 * block again, the answer stands and the user is told why in one line. A Stop hook that always
 * blocks therefore costs exactly one more model call, never a loop without end. The turn budget
 * (`--max-turns`) still applies: a continuation it has no room for ends the run with `max_turns`.
 */
import type { HookVerdict } from "./runner/combine-hook-outcomes.ts";

/** What the loop does once its Stop hooks have run. */
export type StopDecision =
  /** Go on: append `message` as a user message and call the model again; `notice` tells the user. */
  | { kind: "continue"; message: string; notice: string }
  /** Return the final answer; `notice` (when set) tells the user why a block was not followed, or why the run ends. */
  | { kind: "stop"; notice?: string };

/**
 * Decide whether the loop goes on after its Stop hooks; `stopHookActive` is true when they already
 * sent it on once for this prompt.
 * Contract: "continue" only when a hook blocked, no hook said `"continue": false`, and
 * `stopHookActive` is false; a block, followed or not, always comes with a one-line notice.
 */
export function continueAfterStop(verdict: HookVerdict, stopHookActive: boolean): StopDecision {
  if (verdict.stop !== undefined)
    return { kind: "stop", notice: `a Stop hook ended the run: ${oneLine(verdict.stop)}` };
  if (verdict.block === undefined) return { kind: "stop" };
  if (stopHookActive) {
    return {
      kind: "stop",
      notice: `a Stop hook blocked again after the loop went on once for this prompt; the answer stands: ${oneLine(verdict.block)}`,
    };
  }
  return {
    kind: "continue",
    message: verdict.block,
    notice: `a Stop hook sent the loop on: ${oneLine(verdict.block)}`,
  };
}

/** A hook's reason on one line, cut to a length a notice can show. */
export function oneLine(text: string): string {
  const line = text.trim().split("\n").join(" / ");
  return line.length > 300 ? `${line.slice(0, 300)}...` : line;
}
