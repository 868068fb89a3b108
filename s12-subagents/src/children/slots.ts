/**
 * A count of free places, for the children of one agent: a task call takes one before its child
 * starts and gives it back when the child ends, so at most so many run at once; the rest wait in
 * call order, or give up when the parent is interrupted.
 */
/** A count of free places; `take` waits for one, or gives up when the signal fires. */
export class Slots {
  private readonly waiting: Array<(granted: boolean) => void> = [];

  constructor(private free: number) {}

  /** A place, as the function that gives it back; `undefined` when `signal` fired first. */
  async take(signal?: AbortSignal): Promise<(() => void) | undefined> {
    if (signal?.aborted) return undefined;
    if (this.free > 0) {
      this.free--;
      return this.giver();
    }
    const granted = await new Promise<boolean>((resolve) => {
      const give = (ok: boolean) => {
        signal?.removeEventListener("abort", quit);
        resolve(ok);
      };
      const quit = () => {
        this.waiting.splice(this.waiting.indexOf(give), 1);
        resolve(false);
      };
      this.waiting.push(give);
      signal?.addEventListener("abort", quit, { once: true });
    });
    return granted ? this.giver() : undefined;
  }

  private giver(): () => void {
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const next = this.waiting.shift();
      if (next) next(true);
      else this.free++;
    };
  }
}
