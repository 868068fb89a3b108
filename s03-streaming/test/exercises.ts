/**
 * The chapter's exercises as checked claims (see docs/README.md, "Exercises"): each change, made
 * in a copy of the repository by `pnpm test:exercises s03-streaming`, turns the named test red.
 */
export const exercises = [
  {
    id: 1,
    file: "src/stream-turn.ts",
    find: "const value: unknown = JSON.parse(raw);",
    replace: 'const value: unknown = JSON.parse(raw.trimEnd().endsWith("}") ? raw : raw + "}"); // forgive a missing }',
    test: "never runs a tool call whose streamed JSON was cut",
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
    replace: "if (progress.consumed && attempt >= STREAM_RETRIES) {",
    test: "throws for an SSE error event after content arrived",
    expect: "fail",
  },
];
