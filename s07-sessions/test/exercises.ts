/**
 * The exercises of this chapter's text, as data that `pnpm test:exercises` checks: the first is a
 * build exercise (its `find` → `replace` is the stub the reader starts from, the chapter's code
 * the answer); the others each make one change to the code and name the tests it turns red
 * (`expect: "fail"`). Test infrastructure, not part of the chapter; the fields are described in
 * docs/src/exercises.ts.
 */
export const exercises = [
  {
    // the repair written by the reader: without it, a session killed mid-tool cannot be resumed
    id: 1,
    kind: "build",
    file: "src/interrupted-results.ts",
    find: `  const last = history.at(-1);
  if (last?.role !== "assistant" || typeof last.content === "string") return undefined;
  const calls = last.content.flatMap((block) =>
    block.type === "tool_use" ? [{ id: block.id, name: block.name, input: {} }] : [],
  );
  if (calls.length === 0) return undefined;
  return { role: "user", content: calls.map((call) => toResultBlock(call, INTERRUPTED)) };
`,
    replace: "  return undefined;\n",
    test: "left without results|after kill -9|resume one session|forks into a new session|the kill -9 and the repair included",
    expect: "fail",
  },
  {
    // the prompt left to no one: every message after it is on disk, the prompt is not
    id: 2,
    file: "src/agent-loop.ts",
    find: "if (prompt) told(prompt); // in the history already: told as sent",
    replace: "",
    test: "test/agent-loop.test.ts",
    expect: "fail",
  },
  {
    // every lock taken over, a running holder's too: two processes write one transcript
    id: 3,
    file: "src/store/lock-session.ts",
    find: 'if (holder !== undefined && isRunning(holder)) return { kind: "in_use", pid: holder }; // this process too: one writer per file',
    replace: "",
    test: "test/lock-session.test.ts",
    expect: "fail",
  },
];
