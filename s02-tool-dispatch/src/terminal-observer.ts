/**
 * The loop's events, shown on the terminal: the turn header, text as it streams, a tool call's
 * name as soon as its block starts and its input as it grows, then each call and its result.
 */
import type { TerminalView } from "@harness/shared";
import type { LoopObserver } from "./agent-loop.ts";

/** An observer that draws the loop on `view`. */
export function terminalObserver(view: TerminalView): LoopObserver {
  let callsThisTurn = 0;
  return {
    modelCall: (n) => view.modelCall(n),
    start: () => view.modelAnswered(),
    text: (delta) => view.textDelta(delta),
    toolStart: (name) => view.toolStart(name),
    toolInput: (partial) => view.toolInput(partial),
    toolCalls: (calls) => {
      callsThisTurn = calls.length;
      for (const call of calls) view.toolCall(call);
    },
    // several calls may finish in any order: label each result with its call
    toolResult: (call, result) => view.toolResult(result, callsThisTurn > 1 ? call : undefined),
  };
}
