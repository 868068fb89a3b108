/**
 * One event, every hook it runs: match them, leave out the project's hooks unless they are
 * trusted, run the rest at once, read each run, combine the outcomes into one verdict. The time
 * an event costs is its slowest hook's, not the sum.
 */
import { combineHookOutcomes, type HookVerdict } from "./combine-hook-outcomes.ts";
import type { HookInput } from "./hook-input.ts";
import type { HookCommand } from "./load-hooks.ts";
import { matchHooks } from "./match-hooks.ts";
import { readHookRun } from "./read-hook-run.ts";
import { type RunHookOptions, runHook } from "./run-hook.ts";

/** How an event's hooks run. */
export interface RunHooksOptions extends RunHookOptions {
  /** Whether `project` hooks may run: the user trusted them (see decideTrust). `local` hooks always may. */
  runProjectHooks: boolean;
}

/**
 * Run every hook `input`'s event matches and return their combined verdict.
 * Contract: never throws and never rejects; with no matching hook it spawns nothing and the
 * verdict is empty.
 */
export async function runHooks(
  hooks: readonly HookCommand[],
  input: HookInput,
  options: RunHooksOptions,
): Promise<HookVerdict> {
  const allowed = hooks.filter((hook) => hook.source === "local" || options.runProjectHooks);
  const matched = matchHooks(allowed, input);
  const runs = await Promise.all(matched.map((hook) => runHook(hook, input, options)));
  const event = input.hook_event_name;
  return combineHookOutcomes(
    event,
    runs.map((run) => ({ run, outcome: readHookRun(run, event) })),
  );
}
