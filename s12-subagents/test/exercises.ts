/**
 * The exercises of this chapter's text, as data that `pnpm test:exercises` checks: each makes one
 * change to the code and names the test it turns red (`expect: "fail"`). The first is the build
 * exercise (`kind: "build"`): its change is the stub the reader starts from, it turns only the
 * tests it names red, and the chapter's own code is the reference that passes the whole suite. Test
 * infrastructure, not part of the chapter; the fields are described in docs/README.md ("Exercises").
 */
export const exercises = [
  {
    // the stub of the build exercise: each turn charged, the child never stopped
    id: 1,
    kind: "build",
    file: "src/token-budget.ts",
    find: '        this.charge(heard.turn.usage);\n        const goesOn = heard.turn.toolCalls.length === 0 && stopReasonFor(heard.turn) === null;\n        if (goesOn && this.left <= 0) stop();\n      }\n      if (heard.type === "message" && heard.message.role === "user" && this.left <= 0) stop();\n',
    replace: "        this.charge(heard.turn.usage);\n      }\n",
    test: "stops a child at its token budget|stops the child only where",
    expect: "fail",
  },
  {
    // task calls one by one: the quick child waits for the slow one
    id: 2,
    file: "src/subagents.ts",
    find: "      concurrencySafe: true,",
    replace: "      concurrencySafe: false,",
    test: "runs two task calls of one turn at the same time",
    expect: "fail",
  },
  {
    // every child gets task: its first request offers it
    id: 3,
    file: "src/subagents.ts",
    find: "const allowed = definition.tools ?? [...options.tools.keys()];",
    replace: "const allowed = definition.tools ?? [...options.tools.keys(), TASK];",
    test: "starts the child on a fresh history",
    expect: "fail",
  },
];
