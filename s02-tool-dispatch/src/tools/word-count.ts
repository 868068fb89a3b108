/**
 * word_count: how many words a text file in the working directory has. Not one of the chapter's
 * six tools (`ALL_TOOLS`, which later chapters offer as they are): it is the tool exercise 1 of
 * the chapter text asks you to write, and this file is the answer. Offering it is one entry in a
 * map, `toolMap([...ALL_TOOLS, wordCountTool])`; the loop does not change.
 */

import { toolOutput } from "@harness/shared";
import { codedError } from "../dispatch.ts";
import { defineTool } from "../tool.ts";
import { openRegularFile } from "./open-regular-file.ts";
import { decodeText, notTextError } from "./read-lines.ts";
import { resolveInWorkdir } from "./resolve-in-workdir.ts";

/** Count the words (runs of non-space characters) of a text file in the working directory. */
export const wordCountTool = defineTool({
  name: "word_count",
  description: "Count the words of a text file in the working directory.",
  inputSchema: {
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
    const words = decoded.text.split(/\s+/).filter((word) => word !== "").length;
    return toolOutput(`${path}: ${words} words`);
  },
});
