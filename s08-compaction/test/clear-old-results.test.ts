import { historyProblems } from "@harness/shared";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CLEARED_RESULT, clearOldResults, KEEP_RECENT_TURNS } from "../src/compaction/clear-old-results.ts";
import { answer, historyFrom, steps, tools } from "./histories.ts";

/** Every tool_result's content, in order. */
const results = (messages: ReturnType<typeof historyFrom>) =>
  messages.flatMap((m) =>
    typeof m.content === "string" ? [] : m.content.flatMap((b) => (b.type === "tool_result" ? [b.content] : [])),
  );

describe("clearOldResults", () => {
  it("clears every result but those of the last turns, keeping every pair and id", () => {
    const messages = historyFrom([tools(2, 500), answer, tools(1, 500), tools(1, 500), tools(1, 500), tools(1, 500)]);
    const ids = JSON.stringify(messages).match(/toolu_\d+/g);
    const cleared = clearOldResults(messages);
    expect(cleared.results).toBe(3);
    expect(cleared.freedTokens).toBeGreaterThan(3 * 100);
    expect(results(messages)).toEqual([
      CLEARED_RESULT,
      CLEARED_RESULT,
      CLEARED_RESULT,
      ...Array(KEEP_RECENT_TURNS).fill("r".repeat(500)),
    ]);
    expect(JSON.stringify(messages).match(/toolu_\d+/g)).toEqual(ids);
    expect(historyProblems(messages)).toEqual([]);
  });

  it("leaves a history with no more calling turns than it keeps, and short or cleared results, as they are", () => {
    const few = historyFrom([tools(1, 900), tools(1, 900), tools(1, 900)]);
    expect(clearOldResults(few)).toEqual({ results: 0, freedTokens: 0 });
    const short = historyFrom([tools(1, 3), tools(1, 500), tools(1, 500), tools(1, 500), tools(1, 500)]);
    expect(clearOldResults(short).results).toBe(1);
    expect(clearOldResults(short)).toEqual({ results: 0, freedTokens: 0 });
  });

  it("clears every result when it keeps no turn", () => {
    const messages = historyFrom([tools(1, 500), tools(1, 500)]);
    expect(clearOldResults(messages, 0).results).toBe(2);
    expect(results(messages)).toEqual([CLEARED_RESULT, CLEARED_RESULT]);
  });

  it("keeps any valid history valid, with as many blocks and the same ids (property)", () => {
    fc.assert(
      fc.property(steps, fc.integer({ min: 0, max: 5 }), (history, keep) => {
        const messages = historyFrom(history);
        const shape = (m: typeof messages) =>
          JSON.stringify(
            m.map((x) =>
              typeof x.content === "string"
                ? "s"
                : x.content.map((b) => [b.type, "id" in b ? b.id : "tool_use_id" in b ? b.tool_use_id : ""]),
            ),
          );
        const before = shape(messages);
        clearOldResults(messages, keep);
        expect(historyProblems(messages)).toEqual([]);
        expect(shape(messages)).toBe(before);
      }),
    );
  });
});
