/**
 * A decision is a value: what happens to one tool call, and a sentence saying why, which goes back
 * to the model when the call is refused ("denied by rule Bash(rm:*) in .harness/settings.json: the
 * simple command `rm -rf build` in `git diff && rm -rf build`").
 */

/** What happens to a tool call. */
export type Behavior = "allow" | "ask" | "deny";

/** The decision on one tool call. */
export interface Decision {
  behavior: Behavior;
  /** One sentence for the model and the user: what decided, and about which part of the call. */
  reason: string;
  /** The rule that decided, as written (`Bash(rm:*)`), when a rule did. */
  rule?: string;
  /** Where that rule came from: a settings file, `--allow`/`--ask`/`--deny`, or `default`. */
  source?: string;
}

/** How strongly a behaviour holds when parts of one call disagree: deny beats ask beats allow. */
export const BEHAVIOR_RANK: Readonly<Record<Behavior, number>> = { allow: 0, ask: 1, deny: 2 };
