/** How a loop ends from s08 on: s06's results, plus `context_overflow`. */
import type { AgentStopReason as HookStopReason } from "@harness/s06-hooks";

/**
 * s06's results (`final_answer`, `max_tokens`, `max_turns`, `aborted`, `prompt_blocked`), plus
 * `context_overflow`: the history could not be made to fit the context window (the API refused it
 * as too long even after a compaction, or compaction failed `MAX_COMPACTION_FAILURES` times in a row).
 */
export type AgentStopReason = HookStopReason | "context_overflow";
