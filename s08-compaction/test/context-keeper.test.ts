/**
 * The keeper reads a "too long" refusal through whatever reader it is given, so a provider whose
 * refusal is worded otherwise is kept inside its window too; a refusal that names no maximum is
 * bounded by the request that did not fit.
 */
import { demoBrain, ScriptedModel } from "@harness/scripted-model";
import { describe, expect, it } from "vitest";
import { ContextKeeper } from "../src/context-keeper.ts";
import { sendTurnWith } from "../src/send-turn.ts";
import { historyFrom, tools } from "./histories.ts";

const refusedAsTooLong = new Error("the provider's own words");

function keeper(maximum?: number) {
  return new ContextKeeper({
    send: sendTurnWith(new ScriptedModel({ brain: demoBrain }).client()),
    model: "claude-test",
    system: "s",
    tools: [],
    signal: new AbortController().signal,
    tooLong: (error) => (error === refusedAsTooLong ? { tokens: 0, ...(maximum ? { maximum } : {}) } : null),
  });
}

describe("ContextKeeper.reactsTo", () => {
  it("reacts to the refusals its reader recognises, and to nothing else", () => {
    const k = keeper(5000);
    expect(k.reactsTo(new Error("another error"))).toBe(false);
    expect(k.reactsTo(refusedAsTooLong)).toBe(true);
    expect(k.limits.usable).toBeLessThan(5000);
  });

  it("bounds the window by the refused request when the refusal names no maximum", async () => {
    const k = keeper();
    const before = k.limits.usable;
    const messages = historyFrom([tools(2, 4000), tools(2, 4000), tools(2, 4000)]);
    const refused = k.size(messages).tokens;
    expect(refused).toBeLessThan(before);
    expect(k.reactsTo(refusedAsTooLong)).toBe(true);
    expect(k.limits.usable).toBe(before); // not yet: the size is known at the compaction
    await k.compact(messages, "too_long");
    expect(k.limits.usable).toBeLessThan(refused);
  });
});
