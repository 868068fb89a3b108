import { describe, expect, it } from "vitest";
import { EXIT_CODES, exitCodeFor } from "../src/exit-code-for.ts";

describe("exitCodeFor", () => {
  it("keeps COURSE.md's table, and names no chapter's results", () => {
    expect(EXIT_CODES).toEqual({ final_answer: 0, max_turns: 2, max_tokens: 3, error: 1, interrupted: 130 });
  });

  it.each([
    ["final_answer", 0],
    ["max_turns", 2],
    ["max_tokens", 3],
  ])("maps %s to %i", (reason, code) => {
    expect(exitCodeFor(reason)).toBe(code);
  });

  it("takes a chapter's own results from its table", () => {
    expect(exitCodeFor("aborted", { aborted: 130 })).toBe(130);
    expect(exitCodeFor("repeated_tool_call", { repeated_tool_call: 2 })).toBe(2);
  });

  it("lets no chapter change a status of the contract", () => {
    expect(exitCodeFor("final_answer", { final_answer: 7 })).toBe(0);
  });

  it("maps a result no table lists, even one named like an object's own property, to 1", () => {
    for (const reason of ["aborted", "novel", "constructor", "toString", "__proto__"])
      expect(exitCodeFor(reason)).toBe(1);
  });
});
