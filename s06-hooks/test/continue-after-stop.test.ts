import { describe, expect, it } from "vitest";
import type { HookVerdict } from "../src/combine-hook-outcomes.ts";
import { continueAfterStop, MAX_STOP_HOOK_CONTINUATIONS } from "../src/continue-after-stop.ts";

const verdict = (fields: Partial<HookVerdict> = {}): HookVerdict => ({
  event: "Stop",
  context: [],
  notices: [],
  runs: [],
  ...fields,
});

describe("continueAfterStop", () => {
  it("lets the answer stand when no Stop hook blocked", () => {
    expect(continueAfterStop(verdict(), 0)).toEqual({ kind: "stop" });
  });

  it("goes on with the block's reason as the next user message", () => {
    expect(continueAfterStop(verdict({ block: "run the tests" }), 0)).toEqual({
      kind: "continue",
      message: "run the tests",
    });
  });

  it(`goes on at most ${MAX_STOP_HOOK_CONTINUATIONS} times per prompt, then says why it stopped`, () => {
    const blocking = verdict({ block: "again" });
    const decisions = [0, 1, 2, 3, 4].map((n) => continueAfterStop(blocking, n).kind);
    expect(decisions).toEqual(["continue", "continue", "continue", "stop", "stop"]);
    expect(continueAfterStop(blocking, 3)).toEqual({
      kind: "stop",
      notice: "Stop hooks asked to go on 4 times for this prompt; the answer stands (the bound is 3).",
    });
  });

  it('stops when a hook says "continue": false, even if another blocked', () => {
    expect(continueAfterStop(verdict({ block: "again", stop: "enough" }), 0)).toEqual({ kind: "stop" });
  });
});
