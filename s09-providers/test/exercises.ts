/**
 * The exercises of this chapter's text, as data that `pnpm test:exercises` checks: each makes one
 * change to the code and names the test it turns red (`expect: "fail"`). The first is the build
 * exercise (`kind: "build"`): its change is the stub the reader starts from, it turns only the
 * tests it names red, and the chapter's own code is the reference that passes the whole suite.
 * Test infrastructure, not part of the chapter; the fields are described in docs/README.md
 * ("Exercises").
 */
export const exercises = [
  {
    // the stub of the build exercise: content_filter goes on as it came, so a call it cut may run
    id: 1,
    kind: "build",
    file: "src/openai/message-from-chat.ts",
    find: '  content_filter: "refusal", // the provider withheld the rest: nothing from this turn runs\n',
    replace: "",
    test: "refusal as one|content filter|finish-reason table",
    expect: "fail",
  },
  {
    // the window reads refusals with s08's reader, which knows only the Messages API's words
    id: 2,
    file: "src/main.ts",
    find: "      tooLong: adapter.promptTooLong,\n",
    replace: "",
    test: "answers the provider's own 'too long' refusal",
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
