/**
 * How a run of s08's loop ends: s06's results, plus one the window adds. A history that cannot be
 * made to fit (compaction failed too often, or the API refused it again after one) ends the run
 * with `context_overflow`, its history as it was.
 */
import { HOOK_EXIT_CODES, type HookStopReason } from "@harness/s06-hooks";

/** `final_answer`, `max_turns`, `max_tokens`, `aborted`, `prompt_blocked`, or `context_overflow`. */
export type CompactionStopReason = HookStopReason | "context_overflow";

/** The exit status of each result s03, s06 and s08 add: a history that does not fit exits 5. */
export const COMPACTION_EXIT_CODES = { ...HOOK_EXIT_CODES, context_overflow: 5 } as const;
