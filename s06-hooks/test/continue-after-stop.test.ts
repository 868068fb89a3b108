import { describe, expect, it } from "vitest";
import { continueAfterStop, oneLine } from "../src/continue-after-stop.ts";
import type { HookVerdict } from "../src/runner/combine-hook-outcomes.ts";

const verdict = (fields: Partial<HookVerdict> = {}): HookVerdict => ({
  event: "Stop",
  context: [],
  notices: [],
  runs: [],
  ...fields,
});

describe("continueAfterStop", () => {
  it("lets the answer stand when no Stop hook blocked", () => {
    expect(continueAfterStop(verdict(), false)).toEqual({ kind: "stop" });
    expect(continueAfterStop(verdict(), true)).toEqual({ kind: "stop" });
  });

  it("goes on with the block's reason as the next user message", () => {
    expect(continueAfterStop(verdict({ block: "run the tests" }), false)).toEqual({
      kind: "continue",
      message: "run the tests",
      notice: "a Stop hook sent the loop on: run the tests",
    });
  });

  it("goes on once per prompt: a block once a Stop hook is active stands as one line for the user", () => {
    expect(continueAfterStop(verdict({ block: "the tests fail:\n1 failed" }), true)).toEqual({
      kind: "stop",
      notice:
        "a Stop hook blocked again after the loop went on once for this prompt; the answer stands: the tests fail: / 1 failed",
    });
  });

  it('stops when a hook says "continue": false, even if another blocked, and says why', () => {
    expect(continueAfterStop(verdict({ block: "again", stop: "enough" }), false)).toEqual({
      kind: "stop",
      notice: "a Stop hook ended the run: enough",
    });
  });
});

describe("oneLine", () => {
  it("joins the lines of a reason and cuts a long one", () => {
    expect(oneLine("  a\nb \n")).toBe("a / b");
    expect(oneLine("x".repeat(400))).toBe(`${"x".repeat(300)}...`);
  });
});
