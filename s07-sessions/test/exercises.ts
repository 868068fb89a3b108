/**
 * The exercises of this chapter's text, as data that `pnpm test:exercises` checks: each makes one
 * change to the code and names the test it turns red (`expect: "fail"`). Test infrastructure, not
 * part of the chapter; the fields are described in docs/README.md ("Exercises").
 */
export const exercises = [
  {
    // one message added without being told: the run works, its transcript no longer reads back as its history
    id: 1,
    file: "src/agent-loop.ts",
    find: 'messages.push(told({ role: "user", content: turn.toolCalls.map((call) => toResultBlock(call, notRun(turn))) }));',
    replace:
      'messages.push({ role: "user", content: turn.toolCalls.map((call) => toResultBlock(call, notRun(turn))) });',
    test: "writes a tool call cut by max_tokens",
    expect: "fail",
  },
  {
    // the prompt left to no one: every message after it is on disk, the prompt is not
    id: 2,
    file: "src/agent-loop.ts",
    find: "if (prompt) told(prompt); // in the history already: told as sent",
    replace: "",
    test: "writes the prompt as sent",
    expect: "fail",
  },
  {
    // no repair on load: a session killed while a tool ran ends with a call no result answers
    id: 3,
    file: "src/open-session.ts",
    find: "const repair = interruptedResults(history);",
    replace: "const repair = undefined;",
    test: "resumes after kill -9 in the middle of a tool",
    expect: "fail",
  },
  {
    // every lock taken over, a running holder's too: two processes write one transcript
    id: 4,
    file: "src/store/lock-session.ts",
    find: 'if (holder !== undefined && isRunning(holder)) return { kind: "in_use", pid: holder }; // this process too: one writer per file',
    replace: "",
    test: "never lets two processes that resume one session write to it at once",
    expect: "fail",
  },
];
