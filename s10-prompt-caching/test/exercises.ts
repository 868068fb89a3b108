/**
 * The exercises of this chapter's text, as data that `pnpm test:exercises` checks: each makes one
 * change to the code and names the test it turns red (`expect: "fail"`). The first is the build
 * exercise (`kind: "build"`): its change is the stub the reader starts from, it turns only the
 * tests it names red, and the chapter's own code is the reference that passes the whole suite. Test infrastructure, not part of the chapter; the
 * fields are described in docs/README.md ("Exercises").
 */
export const exercises = [
  {
    // the stub of the build exercise: no anchor, so a turn past the lookback reads nothing (every test of the anchor fails)
    id: 1,
    kind: "build",
    file: "src/place-breakpoints.ts",
    find: "  if (previousTail === undefined || previousTail >= tail) return undefined;\n  return tail - previousTail >= LOOKBACK_BLOCKS ? previousTail : undefined;\n",
    replace: "  return undefined;\n",
    test: "anchor",
    expect: "fail",
  },
  {
    // the markers written into the history: each turn's stays, and they pile up
    id: 2,
    file: "src/place-breakpoints.ts",
    find: "return { ...message, content } as MessageParam;",
    replace: "return Object.assign(message, { content });",
    test: "marks the last tool, the system prompt and the last block",
    expect: "fail",
  },
  {
    // a timestamp in the system prompt: a resumed session's first request differs before every breakpoint
    id: 3,
    file: "src/agent-loop.ts",
    find: "Use the tools. Be brief.`;",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the text the exercise puts into the loop's template literal
    replace: "Use the tools. Be brief. It is ${new Date().toISOString()}.`;",
    test: "sends the system prompt and the tools byte for byte the same",
    expect: "fail",
  },
];
