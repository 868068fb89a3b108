/**
 * The cache breakpoints as a model call: `cached(send)` is a `SendTurn` that marks each request
 * (`placeBreakpoints`) and sends the marked copy through `send`. main.ts puts it between s08's
 * window and s09's adapter, so the window still fits and compacts the real history, in place, and
 * no marker ever enters that history. It remembers one thing between calls: where the last
 * request's tail marker stood, to anchor the next one when a turn adds many blocks.
 */
import type { SendTurn } from "@harness/s03-streaming";
import { type BreakpointOptions, placeBreakpoints } from "./place-breakpoints.ts";

/** `send`, each request marked for the prompt cache first. */
export function cached(send: SendTurn, options: Omit<BreakpointOptions, "previousTail">): SendTurn {
  let previousTail: number | undefined;
  return (request, signal, emit) => {
    const marked = placeBreakpoints(request, { ...options, previousTail });
    if (marked.tail !== undefined) previousTail = marked.tail; // a side call leaves the conversation's tail where it was
    return send(marked.request, signal, emit);
  };
}
