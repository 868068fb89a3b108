/** How a loop ends from s03 on: s01's results, plus `aborted` (the user pressed Ctrl-C). */
import type { LoopStopReason } from "@harness/shared";

/** s01's results (`final_answer`, `max_tokens`, `max_turns`), plus `aborted`. */
export type AbortableStopReason = LoopStopReason | "aborted";

/** The exit status of the result s03 adds: 130, as a shell gives a program ended by Ctrl-C. */
export const ABORTABLE_EXIT_CODES = { aborted: 130 } as const;
