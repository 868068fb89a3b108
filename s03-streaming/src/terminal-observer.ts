/**
 * The loop's events, shown on the terminal as they happen: the turn header, the text as it
 * streams in, then s02's display of each call (once, with its input) and its result.
 */

import type { TerminalView } from "@harness/cli";
import { terminalObserver as s02Observer } from "@harness/s02-tool-dispatch";
import type { LoopObserver } from "./agent-loop.ts";

/** An observer that draws the streamed loop on `view`. */
export function terminalObserver(view: TerminalView): LoopObserver {
  return {
    ...s02Observer(view),
    start: () => view.modelAnswered(),
    text: (delta) => view.textDelta(delta),
    turn: undefined, // the text was shown as it arrived
  };
}
