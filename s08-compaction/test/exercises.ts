/**
 * The exercises of this chapter's text, as data that `pnpm test:exercises` checks: the first is a
 * build exercise (its `find` → `replace` is the stub the reader starts from, the chapter's code
 * the answer); the others each make one change to the code and name the tests it turns red
 * (`expect: "fail"`). Test infrastructure, not part of the chapter; the fields are described in
 * docs/src/exercises.ts.
 */
export const exercises = [
  {
    // the cut test written by the reader: a stub that allows a cut anywhere parts a tool_use from its tool_result
    id: 1,
    kind: "build",
    file: "src/compaction/find-cut.ts",
    find: `  const message = messages[i];
  if (message.role === "assistant") return true;
  return typeof message.content === "string" || !message.content.some((b) => b.type === "tool_result");
`,
    replace: "  return true;\n",
    test: "isTurnBoundary|never cuts inside a pair|in parts|smaller parts|takes on the window",
    expect: "fail",
  },
  {
    // the cheap step skipped: nothing is cleared, so a summary comes (or nothing does)
    id: 2,
    file: "src/context-window.ts",
    find: "const cleared = clearOldResults(messages);",
    replace: "const cleared = { results: 0 };",
    test: "test/agent-loop.test.ts",
    expect: "fail",
  },
  {
    // the refused request sent again as it was: refused again, the loop stops
    id: 3,
    file: "src/context-window.ts",
    find: 'await this.compact(request.messages, "too_long", signal)',
    replace: "null",
    test: "test/agent-loop.test.ts",
    expect: "fail",
  },
];
