/**
 * The repeated-call guard: a model that makes the same tool call (same name, same input) again
 * and again is stuck, and every round burns a turn of the budget and a model call. After
 * `REPEAT_LIMIT` identical calls in a row the loop stops with `repeated_tool_call` instead.
 */
import type { ToolCall } from "@harness/shared";

/** Identical calls in a row that stop the loop (the last of them is not run). */
export const REPEAT_LIMIT = 3;

/** A call's identity: its name and its input, with object keys in a stable order. */
export function callKey(call: ToolCall): string {
  return `${call.name} ${JSON.stringify(call.input, (_, value) => (isPlainObject(value) ? sorted(value) : value))}`;
}

/** Counts identical calls in a row, across turns. */
export class RepeatGuard {
  private lastKey = "";
  private streak = 0;

  /**
   * Count a turn's calls, in order; true when one of them is the `REPEAT_LIMIT`-th identical
   * call in a row (the loop then runs none of the turn's calls).
   */
  repeats(calls: readonly ToolCall[]): boolean {
    let hit = false;
    for (const call of calls) {
      const key = callKey(call);
      this.streak = key === this.lastKey ? this.streak + 1 : 1;
      this.lastKey = key;
      if (this.streak >= REPEAT_LIMIT) hit = true;
    }
    return hit;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function sorted(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, value[k]]),
  );
}
