/**
 * The repeated-call guard: a model that makes the same tool call (same name, same input) turn
 * after turn is stuck, and every round burns a turn of the budget and a model call. When a call
 * comes back for the `REPEAT_LIMIT`-th turn in a row the loop stops with `repeated_tool_call`.
 */
import type { ToolCall } from "@harness/shared";

/** Turns in a row making the same call that stop the loop (the last of them runs nothing). */
export const REPEAT_LIMIT = 3;

/** A call's identity: its name and its input, with object keys in a stable order. */
export function callKey(call: ToolCall): string {
  return `${call.name} ${JSON.stringify(call.input, (_, value) => (isPlainObject(value) ? sorted(value) : value))}`;
}

/** Counts, for each call, the turns in a row that made it. */
export class RepeatGuard {
  private streaks = new Map<string, number>();

  /**
   * Count a turn's calls; true when one of them has now been made in `REPEAT_LIMIT` turns in a
   * row (the loop then runs none of this turn's calls). The same call twice in one turn counts
   * once: reading a file twice at once is waste, not a loop.
   */
  repeats(calls: readonly ToolCall[]): boolean {
    const next = new Map<string, number>();
    for (const key of new Set(calls.map(callKey))) next.set(key, (this.streaks.get(key) ?? 0) + 1);
    this.streaks = next;
    return [...next.values()].some((n) => n >= REPEAT_LIMIT);
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
