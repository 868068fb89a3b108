/**
 * How deeply a tool's input may nest. `JSON.parse` reads any depth, but `JSON.stringify`,
 * `structuredClone` and every recursive walk after it (the next request's body, a trace, a
 * transcript) overflow the stack a few thousand levels down, and a run that throws there loses the
 * results it already has. So input nested deeper than this is refused where it arrives, before
 * anything walks it: an `invalid_arguments` result, never a call. No tool's schema comes near it.
 */

/** Levels of objects and arrays a tool's input may hold: `{"a": [1]}` holds two. */
export const MAX_INPUT_DEPTH = 64;

/**
 * True when `value` holds objects or arrays more than `depth` levels deep.
 * Contract: walks at most `depth + 1` levels, so it never overflows the stack itself.
 */
export function nestedDeeperThan(value: unknown, depth: number): boolean {
  if (typeof value !== "object" || value === null) return false;
  if (depth <= 0) return true;
  for (const child of Object.values(value)) if (nestedDeeperThan(child, depth - 1)) return true;
  return false;
}
