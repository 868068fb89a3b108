/**
 * One `emit` for several listeners: from s04 on, the terminal view is no longer the only one that
 * hears a loop's events (the trace recorder does too; later, the transcript writer and the window).
 */
import type { Emit } from "@harness/shared";

/** Several listeners as one: each is told every event, in the order given; absent ones are skipped. */
export function fanOut<E extends { type: string }>(...listeners: (Emit<E> | undefined)[]): Emit<E> {
  const present = listeners.filter((listener): listener is Emit<E> => listener !== undefined);
  return (event) => {
    for (const listener of present) listener(event);
  };
}
