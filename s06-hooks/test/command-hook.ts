/** A hook as loadHooks would return it, for tests that do not need a settings file. */
import type { HookEventName } from "../src/runner/hook-input.ts";
import type { HookCommand } from "../src/runner/load-hooks.ts";

/** A `local` PreToolUse hook matching everything, with a 10 s timeout, unless `overrides` say otherwise. */
export function commandHook(command: string, overrides: Partial<HookCommand> = {}): HookCommand {
  return {
    event: "PreToolUse" as HookEventName,
    matcher: "",
    command,
    timeoutMs: 10_000,
    source: "local",
    file: ".harness/settings.local.json",
    ...overrides,
  };
}
