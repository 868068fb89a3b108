/**
 * The exercises of this chapter's text, as data that `pnpm test:exercises` checks: each makes one
 * change to the code and names the test it turns red (`expect: "fail"`). Test infrastructure, not
 * part of the chapter; the fields are described in docs/README.md ("Exercises").
 */
export const exercises = [
  {
    // a cut allowed anywhere: a tool_result can land in the tail without its tool_use
    id: 1,
    file: "src/compaction/find-cut.ts",
    find: 'return typeof message.content === "string" || !message.content.some((b) => b.type === "tool_result");',
    replace: "return true;",
    test: "never cuts inside a pair",
    expect: "fail",
  },
  {
    // the cheap step skipped: nothing is cleared, so a summary comes (or nothing does)
    id: 2,
    file: "src/context-window.ts",
    find: "const cleared = clearOldResults(messages);",
    replace: "const cleared = { results: 0 };",
    test: "clears old tool results above the first threshold",
    expect: "fail",
  },
  {
    // the refused request sent again as it was: refused again, the loop stops
    id: 3,
    file: "src/context-window.ts",
    find: 'await this.compact(request.messages, "too_long", signal)',
    replace: "null",
    test: "with exactly one compaction and one resend",
    expect: "fail",
  },
];
