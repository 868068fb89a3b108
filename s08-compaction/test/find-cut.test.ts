/**
 * The cut: over random valid histories (fast-check), a cut never parts a tool_use from its
 * tool_result, the tail stays within its budget, and the history a summary makes of it passes the
 * strict history checks with the user's latest request in it word for word.
 */
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { historyProblems } from "@harness/shared";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { latestRequest, SUMMARY_OPENING, withSummary } from "../src/compaction/compact-history.ts";
import { findCut, isTurnBoundary } from "../src/compaction/find-cut.ts";
import { estimateTokens } from "../src/measure-context.ts";
import { answer, historyFrom, steps, tools } from "./histories.ts";

/** The tool_use ids of some messages, and the ids their tool_results answer. */
function pairs(messages: readonly MessageParam[]) {
  const uses = new Set<string>();
  const answered = new Set<string>();
  for (const m of messages) {
    if (typeof m.content === "string") continue;
    for (const b of m.content) {
      if (b.type === "tool_use") uses.add(b.id);
      if (b.type === "tool_result") answered.add(b.tool_use_id);
    }
  }
  return { uses, answered };
}

/** Every text the history holds, as the model reads it. */
const texts = (messages: readonly MessageParam[]) =>
  messages.flatMap((m) =>
    typeof m.content === "string" ? [m.content] : m.content.flatMap((b) => (b.type === "text" ? [b.text] : [])),
  );

describe("isTurnBoundary", () => {
  it("allows a cut before a model turn or a prompt, and never before tool results", () => {
    const messages = historyFrom([tools(1, 10), answer]);
    // user prompt, assistant tool_use, user tool_result, assistant answer, user prompt
    expect([0, 1, 2, 3, 4, 5].map((i) => isTurnBoundary(messages, i))).toEqual([true, true, false, true, true, true]);
  });
});

describe("findCut", () => {
  it("keeps the longest tail within its budget that starts at a turn boundary", () => {
    const messages = historyFrom([tools(1, 400), tools(1, 400), tools(1, 400), answer]);
    const lastTwo = estimateTokens(messages.at(-2)) + estimateTokens(messages.at(-1));
    expect(findCut(messages, lastTwo)).toBe(messages.length - 2);
    expect(findCut(messages, 0)).toBe(messages.length);
    expect(findCut(messages, 1e9)).toBe(1);
  });

  it("never cuts inside a pair, keeps the tail within budget, and the summarised history passes the strict checks (property)", () => {
    fc.assert(
      fc.property(steps, fc.integer({ min: 0, max: 6000 }), (history, budget) => {
        const messages = historyFrom(history);
        const cut = findCut(messages, budget);
        const head = pairs(messages.slice(0, cut));
        const tail = pairs(messages.slice(cut));
        // every pair on one side: what the head asks the head answers, and the same for the tail
        expect([...head.answered].every((id) => head.uses.has(id))).toBe(true);
        expect([...tail.answered].every((id) => tail.uses.has(id))).toBe(true);
        expect([...head.uses].every((id) => head.answered.has(id))).toBe(true);
        expect(cut).toBeGreaterThanOrEqual(1);
        const tailSize = messages.slice(cut).reduce((sum, m) => sum + estimateTokens(m), 0);
        // the work in flight (a model turn whose results end the history) is kept whatever its size
        const last = messages.at(-1)?.content;
        const inFlight = typeof last !== "string" && last?.some((b) => b.type === "tool_result");
        if (inFlight) expect(cut).toBeLessThanOrEqual(messages.length - 2);
        if (!inFlight || cut < messages.length - 2) expect(tailSize).toBeLessThanOrEqual(budget);

        const compacted = withSummary(messages, cut, "## Task\n- the summary");
        expect(historyProblems(compacted)).toEqual([]);
        expect(texts(compacted)[0]).toBe(`${SUMMARY_OPENING}\n\n## Task\n- the summary`);
        // the user's latest words survive, word for word
        expect(texts(compacted)).toContain(latestRequest(messages)?.text);
        // and the tail is kept as it was: a prompt opening it joins the summary's message
        const opensWithPrompt = messages[cut]?.role === "user";
        expect(compacted.slice(1)).toEqual(messages.slice(cut + (opensWithPrompt ? 1 : 0)));
        if (opensWithPrompt)
          expect(JSON.stringify(compacted[0].content)).toContain(JSON.stringify(messages[cut].content).slice(1, -1));
      }),
      { numRuns: 300 },
    );
  });
});
