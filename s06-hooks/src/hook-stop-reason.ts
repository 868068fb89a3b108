/**
 * How a run of s06's loop ends: s03's results, plus one that the hooks add. A UserPromptSubmit
 * hook that blocks takes the prompt back before anything is sent, so the run ends with no model
 * call at all: `prompt_blocked`, 0 turns, the history as it was before the prompt.
 */
import { ABORTABLE_EXIT_CODES, type AbortableStopReason } from "@harness/s03-streaming";

/** `final_answer`, `max_turns`, `max_tokens`, `aborted` (s03), or `prompt_blocked`. */
export type HookStopReason = AbortableStopReason | "prompt_blocked";

/** The exit status of each result s03 and s06 add: a blocked prompt exits 4. */
export const HOOK_EXIT_CODES = { ...ABORTABLE_EXIT_CODES, prompt_blocked: 4 } as const;
