/**
 * The chapter's exercises as checked claims (see docs/README.md, "Exercises"): each change, made
 * in a copy of the repository by `pnpm test:exercises s03-streaming`, turns the named test red.
 * Exercise 1 is the one the reader builds: its `replace` is the stub of `parseToolInput`, and the
 * chapter's own code is the reference.
 */
export const exercises = [
  {
    id: 1,
    kind: "build",
    file: "src/stream-turn.ts",
    find: '  if (raw.trim() === "") return {};\n  try {\n    const value: unknown = JSON.parse(raw);\n    if (nestedDeeperThan(value, MAX_INPUT_DEPTH)) return raw;\n    return typeof value === "object" && value !== null && !Array.isArray(value) ? value : raw;\n  } catch {\n',
    replace:
      "  // exercise 1: empty text is {}; only a JSON object is a call's input, anything else stays the raw\n" +
      "  // text, and so does an object nested deeper than MAX_INPUT_DEPTH (nestedDeeperThan tells);\n" +
      "  // write it so that the five red tests of test/stream-turn.test.ts turn green\n" +
      "  try {\n    return JSON.parse(raw);\n  } catch {\n",
    test: "test/stream-turn.test.ts",
    expect: "fail",
  },
  {
    id: 2,
    file: "src/agent-loop.ts",
    find: "      tally.ran(outputs.length);\n",
    replace:
      '      tally.ran(outputs.length);\n      if (signal.aborted) return tally.end("aborted", turns); // no results for a cut batch\n',
    test: "stops mid-tool",
    expect: "fail",
  },
  {
    id: 3,
    file: "src/stream-turn.ts",
    find: "if (progress.consumed) {",
    replace: "if (progress.consumed && n >= STREAM_RETRIES) {",
    test: "throws for an SSE error event after content arrived",
    expect: "fail",
  },
];
