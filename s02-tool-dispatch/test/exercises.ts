/**
 * The exercises of this chapter's text, as data that `pnpm test:exercises` checks. The first is
 * the build exercise (`kind: "build"`): its change is the stub the reader starts from, it turns
 * only the tests it names red, and the chapter's own code is the reference that passes the whole
 * suite. The other makes one change and names the test file it turns red. Test infrastructure,
 * not part of the chapter; the fields are described in docs/README.md ("Exercises").
 */
export const exercises = [
  {
    // the stub of the build exercise: word_count with no schema, no handler and the wrong flag;
    // src/tools/word-count.ts as the chapter has it is the answer (not in ALL_TOOLS: later
    // chapters offer the six as they are)
    id: 1,
    kind: "build",
    file: "src/tools/word-count.ts",
    find: `  inputSchema: {
    type: "object",
    properties: { path: { type: "string", description: "Path relative to the working directory." } },
    required: ["path"],
    additionalProperties: false,
  },
  concurrencySafe: true,
  async run({ path }, { cwd }) {
    const resolved = resolveInWorkdir(cwd, path);
    if (!resolved.ok) return codedError(resolved.code, resolved.reason);
    const opened = await openRegularFile(resolved.path, path, "read");
    if (!opened.ok) return codedError(opened.code, opened.reason);
    const decoded = decodeText(await opened.handle.readFile().finally(() => opened.handle.close()));
    if (decoded.kind !== "text") {
      return notTextError(decoded.kind, path, opened.info.size, "word_count counts the words of UTF-8 text only");
    }
    const words = decoded.text.split(/\\s+/).filter((word) => word !== "").length;
    return toolOutput(\`\${path}: \${words} words\`);
  },
});
`,
    replace: `  inputSchema: { type: "object", properties: {} },
  concurrencySafe: false,
  run: async () => codedError("handler_failed", "word_count: not written yet"),
});
`,
    test: "test/tools/word-count.test.ts",
    expect: "fail",
  },
  {
    // bash marked read-only: a turn of bash then read_file runs both at once, the read before the write ends
    id: 2,
    file: "src/tools/bash.ts",
    find: "  concurrencySafe: false,",
    replace: "  concurrencySafe: true,",
    test: "test/run-tool-calls.test.ts",
    expect: "fail",
  },
];
