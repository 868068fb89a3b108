/**
 * The exercises of this chapter's text, as data that `pnpm test:exercises` checks: each makes one
 * change to the code and names the test it turns red (`expect: "fail"`) or leaves green
 * (`expect: "pass"`). Test infrastructure, not part of the chapter; the fields are described in
 * docs/README.md ("Exercises").
 */
export const exercises = [
  {
    // a cut turn's tool calls get no result: the next request would be rejected by the API
    id: 1,
    file: "src/agent-loop.ts",
    find: `      if (turn.toolCalls.length > 0) {
        messages.push({ role: "user", content: turn.toolCalls.map((call) => resultBlock(call, notRun(turn))) });
      }
`,
    replace: "",
    test: "never runs the cut tool_use",
    expect: "fail",
  },
  {
    // off by one: the budget allows one model call more than it says
    id: 2,
    file: "src/agent-loop.ts",
    find: `if (turns >= maxTurns) return result("max_turns");`,
    replace: `if (turns > maxTurns) return result("max_turns");`,
    test: "ends with max_turns after exactly maxTurns model calls",
    expect: "fail",
  },
  {
    // the calls of one turn run at once; the results still go back in tool_use order
    id: 3,
    file: "src/agent-loop.ts",
    find: `      for (const call of turn.toolCalls) {
        options.observer?.toolCall?.(call);
        const output = await runTool(call, options);
        toolCalls++;
        options.observer?.toolResult?.(call, output);
        results.push(resultBlock(call, output));
      }
`,
    replace: `      const outputs = await Promise.all(
        turn.toolCalls.map(async (call) => {
          options.observer?.toolCall?.(call);
          const output = await runTool(call, options);
          options.observer?.toolResult?.(call, output);
          return output;
        }),
      );
      toolCalls += outputs.length;
      results.push(...turn.toolCalls.map((call, i) => resultBlock(call, outputs[i])));
`,
    test: "answers several tool calls of one turn in ONE user message, in tool_use order",
    expect: "pass",
  },
];
