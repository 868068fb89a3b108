/**
 * The exercises of this chapter's text, as data that `pnpm test:exercises` checks: each makes one
 * change to the code and names the test it turns red (`expect: "fail"`). Test infrastructure, not
 * part of the chapter; the fields are described in docs/README.md ("Exercises").
 */
export const exercises = [
  {
    // the window reads refusals with s08's reader, which knows only the Messages API's words
    id: 1,
    file: "src/main.ts",
    find: "      tooLong: adapter.promptTooLong,\n",
    replace: "",
    test: "answers the provider's own 'too long' refusal",
    expect: "fail",
  },
  {
    // a call cut by the length limit read as an ordinary answer
    id: 2,
    file: "src/openai/message-from-chat.ts",
    find: 'length: "max_tokens",',
    replace: 'length: "end_turn",',
    test: "never runs a call cut by the length limit",
    expect: "fail",
  },
  {
    // every block sent to every format, signatures and encrypted reasoning included
    id: 3,
    file: "src/history-for-format.ts",
    find: "if (bound.format === format) return true;",
    replace: "return true;",
    test: "drops Anthropic's signed thinking on purpose",
    expect: "fail",
  },
];
