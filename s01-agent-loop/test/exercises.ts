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
    // the provider's stop reason decides instead of the tool blocks: an unknown one ends the run
    id: 3,
    file: "src/agent-loop.ts",
    find: "const stop = stopReasonFor(turn);",
    replace: 'const stop = turn.providerStopReason === "tool_use" ? null : "final_answer";',
    test: "runs the tools of a turn with an unknown stop reason and goes on",
    expect: "fail",
  },
  {
    // one user message per result: two calls of one turn leave two user messages in a row
    id: 4,
    file: "src/agent-loop.ts",
    find: `        results.push(toResultBlock(call, output));
      }
      messages.push({ role: "user", content: results });
`,
    replace: `        messages.push({ role: "user", content: [toResultBlock(call, output)] });
      }
`,
    test: "answers several tool calls of one turn in ONE user message",
    expect: "fail",
  },
];
