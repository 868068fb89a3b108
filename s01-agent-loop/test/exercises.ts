/**
 * The exercises of this chapter's text, as data that `pnpm test:exercises` checks: each makes one
 * change to the code and names the test it turns red (`expect: "fail"`) or leaves green
 * (`expect: "pass"`). Test infrastructure, not part of the chapter; the fields are described in
 * docs/README.md ("Exercises").
 */
export const exercises = [
  {
    // the calls of a cut or refused turn get no result: the next request would be rejected
    id: 1,
    file: "src/agent-loop.ts",
    find: `      if (turn.toolCalls.length > 0) {
        messages.push({ role: "user", content: turn.toolCalls.map((call) =>`,
    replace: `      if (false) {
        messages.push({ role: "user", content: turn.toolCalls.map((call) =>`,
    test: "never runs the cut tool_use",
    expect: "fail",
  },
  {
    // off by one: the budget allows one model call more than it says
    id: 2,
    file: "src/agent-loop.ts",
    find: "if (turns >= maxTurns) return",
    replace: "if (turns > maxTurns) return",
    test: "ends with max_turns after exactly maxTurns model calls",
    expect: "fail",
  },
  {
    // a call is counted before it runs: the same count, because running a tool never throws
    id: 3,
    file: "src/agent-loop.ts",
    find: `        const output = await runTool(call, options);
        toolCalls++;
`,
    replace: `        toolCalls++;
        const output = await runTool(call, options);
`,
    test: "runs a tool, sends its result with the matching id, then answers",
    expect: "pass",
  },
];
