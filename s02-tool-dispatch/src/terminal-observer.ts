/**
 * The loop's events, shown on the terminal: the turn header, the turn's text, each call as it
 * starts and its result as it lands. Calls that run at once finish in any order, so while more
 * than one runs, each result is labelled with its call.
 */
import type { TerminalView } from "@harness/cli";
import type { LoopObserver } from "./agent-loop.ts";

/** An observer that draws the loop on `view`. */
export function terminalObserver(view: TerminalView): LoopObserver {
  let running = 0;
  let together = false; // some call of this batch ran beside another
  return {
    modelCall: (n) => view.modelCall(n),
    turn: (turn) => view.text(turn.text),
    toolCall: (call) => {
      running++;
      together ||= running > 1;
      view.toolCall(call);
    },
    toolResult: (call, result) => {
      running--;
      view.toolResult(result, together ? call : undefined);
      if (running === 0) together = false;
    },
  };
}
