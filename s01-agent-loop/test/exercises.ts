/**
 * The exercises of this chapter's text, as data that `pnpm test:exercises` checks. The first is
 * the build exercise (`kind: "build"`): its change is the stub the reader starts from, it turns
 * only the tests it names red, and the course's own code is the reference that passes the whole
 * suite. The others make one change each and name the test file it turns red. Test
 * infrastructure, not part of the chapter; the fields are described in docs/README.md
 * ("Exercises").
 */
export const exercises = [
  {
    // the stub of the build exercise: the stop decision knows only the three rows of How it
    // works (tool calls go on, none is an answer), so a cut, refused or paused turn is misread.
    // The decision lives in shared (every chapter stops for the same reasons); s01 teaches it.
    id: 1,
    kind: "build",
    file: "../shared/src/stop-reason-for.ts",
    find: `  switch (turn.providerStopReason) {
    case "max_tokens": // cut short: a tool_use block may hold half its input
    case "model_context_window_exceeded": // the same cut, at the context window
      return "max_tokens";
    case "refusal": // the model declined; nothing from this turn runs
      return "final_answer";
    case "pause_turn": // a server tool paused the turn: resubmit, or run what it asked for
      return null;
    default: // tool_use, end_turn, stop_sequence, null, and anything new
      return turn.toolCalls.length > 0 ? null : "final_answer";
  }
`,
    replace: `  return turn.toolCalls.length > 0 ? null : "final_answer";
`,
    test: "max_tokens|model_context_window_exceeded|pause_turn|refusal",
    expect: "fail",
  },
  {
    // off by one: the budget allows one model call more than it says
    id: 2,
    file: "src/agent-loop.ts",
    find: "if (turns >= maxTurns) return",
    replace: "if (turns > maxTurns) return",
    test: "test/agent-loop.test.ts",
    expect: "fail",
  },
  {
    // one user message per result: two calls of one turn leave two user messages in a row
    id: 3,
    file: "src/agent-loop.ts",
    find: `        results.push(toResultBlock(call, output));
      }
      messages.push({ role: "user", content: results });
`,
    replace: `        messages.push({ role: "user", content: [toResultBlock(call, output)] });
      }
`,
    test: "test/agent-loop.test.ts",
    expect: "fail",
  },
];
