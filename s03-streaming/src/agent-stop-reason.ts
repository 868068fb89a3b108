/** How a loop ends from s03 on: s01's results, plus `aborted` (the user pressed Ctrl-C). */
import type { LoopStopReason } from "@harness/shared";

/** s01's results (`final_answer`, `max_tokens`, `max_turns`), plus `aborted`. */
export type AgentStopReason = LoopStopReason | "aborted";
