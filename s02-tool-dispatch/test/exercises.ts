/**
 * The exercises of this chapter's text, as data that `pnpm test:exercises` checks: each makes one
 * change to the code and names the test it turns red (`expect: "fail"`) or leaves green
 * (`expect: "pass"`). Test infrastructure, not part of the chapter; the fields are described in
 * docs/README.md ("Exercises").
 */
export const exercises = [
  {
    // bash marked read-only: a turn of bash then read_file runs both at once, the read before the write ends
    id: 1,
    file: "src/tools/bash.ts",
    find: "  concurrencySafe: false,",
    replace: "  concurrencySafe: true,",
    test: "read_file after it one by one",
    expect: "fail",
  },
  {
    // results kept in the order they land: a fast call's id is answered with a slow call's output
    id: 2,
    file: "src/run-tool-calls.ts",
    find: `  const results: ToolResult[] = new Array(calls.length);
  const runOne = async (i: number) => {
    const call = calls[i];
    emit({ type: "tool_call", call });
    results[i] = context.signal?.aborted
      ? codedError("interrupted", "the user interrupted before this call ran.")
      : await runCall(tools, call, context);
    emit({ type: "tool_result", call, result: results[i] });
  };`,
    replace: `  const results: ToolResult[] = [];
  const runOne = async (i: number) => {
    const call = calls[i];
    emit({ type: "tool_call", call });
    const result = context.signal?.aborted
      ? codedError("interrupted", "the user interrupted before this call ran.")
      : await runCall(tools, call, context);
    results.push(result);
    emit({ type: "tool_result", call, result });
  };`,
    test: "returns the results in tool_use order",
    expect: "fail",
  },
  {
    // confinement on the path as written only: a link inside that points out leads out
    id: 3,
    file: "src/tools/resolve-in-workdir.ts",
    find: "    if (!isInside(root, real)) return refused;\n",
    replace: "",
    test: "test/tools/resolve-in-workdir.test.ts",
    expect: "fail",
  },
  {
    // a tool added with one definition and one entry in ALL_TOOLS: the loop offers it and routes to it
    id: 4,
    file: "src/tools/index.ts",
    find: "export const ALL_TOOLS = [bashTool, readFileTool, writeFileTool, editFileTool, globTool, grepTool];",
    replace: `import { z } from "zod";
import { defineTool } from "../tool.ts";

/** Count the words of a text. */
const wordCountTool = defineTool({
  name: "word_count",
  description: "Count the words in a text.",
  schema: z.object({ text: z.string().describe("The text whose words to count.") }),
  concurrencySafe: true,
  run: async ({ text }) => ({ content: String(text.split(/\\s+/).filter(Boolean).length), isError: false }),
});

export const ALL_TOOLS = [bashTool, readFileTool, writeFileTool, editFileTool, globTool, grepTool, wordCountTool];`,
    test: "routes a call to it through the map",
    expect: "pass",
  },
];
