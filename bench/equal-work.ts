/**
 * The check that makes a comparison fair: every loop, on every run, ended with the same final
 * text after the same number of tool calls and model calls, and that is what the script asked for.
 */
import type { LoopOutcome } from "./contenders.ts";

/** Describe every way `outcomes` (by loop name, one per run) differ from `expected`; empty when none do. */
export function equalWorkProblems(
  outcomes: ReadonlyMap<string, readonly LoopOutcome[]>,
  expected: LoopOutcome,
): string[] {
  const problems: string[] = [];
  for (const [name, runs] of outcomes) {
    runs.forEach((run, i) => {
      const differs: string[] = [];
      if (run.finalText !== expected.finalText) differs.push(`final text ${JSON.stringify(run.finalText)}`);
      if (run.toolCalls !== expected.toolCalls) differs.push(`${run.toolCalls} tool calls`);
      if (run.turns !== expected.turns) differs.push(`${run.turns} model calls`);
      if (differs.length > 0) {
        problems.push(
          `UNEQUAL WORK: ${name}, run ${i + 1}: ${differs.join(", ")}; expected ${JSON.stringify(expected.finalText)}, ` +
            `${expected.toolCalls} tool calls, ${expected.turns} model calls`,
        );
      }
    });
  }
  return problems;
}

/** The note a section prints when the check passed. */
export function equalWorkNote(loops: number, runs: number, expected: LoopOutcome): string {
  return (
    `Equal work checked: all ${loops} loops, in all ${runs} runs each (warm-up included), ended with ` +
    `${quote(expected.finalText)} after ${expected.toolCalls} tool calls and ${expected.turns} model calls.`
  );
}

function quote(text: string): string {
  const shown = JSON.stringify(text.length <= 80 ? text : `${text.slice(0, 60)}…`);
  return text.length <= 80 ? shown : `${shown} (${text.length} characters)`;
}
