/**
 * The exercises of this chapter's text, as data that `pnpm test:exercises` checks: each makes one
 * change to the code and names the test it turns red (`expect: "fail"`). The first is the build
 * exercise (`kind: "build"`): its change is the stub the reader starts from, it turns only the
 * tests it names red, and the chapter's own code is the reference that passes the whole suite. Test infrastructure, not part of the chapter; the
 * fields are described in docs/README.md ("Exercises").
 */
export const exercises = [
  {
    // the stub of the build exercise: every todo_write call counts, a refused or unanswered one too
    id: 1,
    kind: "build",
    file: "src/last-written-list.ts",
    find: '      const result = Array.isArray(answers)\n        ? answers.find((answer) => answer.type === "tool_result" && answer.tool_use_id === block.id)\n        : undefined;\n      if (result?.type !== "tool_result" || result.is_error) continue; // refused, or never answered\n',
    replace: "",
    test: "passes over a call|the call cut off does not count",
    expect: "fail",
  },
  {
    // the boundary written before the restatement: the session in memory has the list, a resumed one not
    id: 2,
    file: "src/main.ts",
    find: "emit: fanOut(restatePlan(todos), emit),",
    replace: "emit: fanOut(emit, restatePlan(todos)),",
    test: "restates the list after the summary",
    expect: "fail",
  },
  {
    // the count never starts over after a reminder: every turn after the third carries one
    id: 3,
    file: "src/reminders.ts",
    find: "      this.since = 0;\n",
    replace: "",
    test: "reminds once, then again only after as many turns more",
    expect: "fail",
  },
];
