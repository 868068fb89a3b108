/** How a loop ends from s08 on: s03's results, plus `context_overflow`. */
import type { AgentStopReason as StreamingStopReason } from "@harness/s03-streaming";

/**
 * s03's results (`final_answer`, `max_tokens`, `max_turns`, `aborted`), plus `context_overflow`:
 * the history could not be made to fit the context window (the API refused it as too long even
 * after a compaction, or compaction failed `MAX_COMPACTION_FAILURES` times in a row).
 */
export type AgentStopReason = StreamingStopReason | "context_overflow";
