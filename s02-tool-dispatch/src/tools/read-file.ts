/**
 * read_file: a text file with line numbers, a window of it for big files, read a chunk at a time.
 * Only a regular file is read (never a pipe), only text (no NUL byte, valid UTF-8), and the result
 * is capped like bash's output: the note at the end says which offset to ask for next.
 */

import { DEFAULT_MAX_OUTPUT_BYTES, toolOutput } from "@harness/shared";
import { codedError } from "../dispatch.ts";
import { defineTool } from "../tool.ts";
import { openRegularFile } from "./open-regular-file.ts";
import { notTextError, readLines } from "./read-lines.ts";
import { resolveInWorkdir } from "./resolve-in-workdir.ts";

/** Lines returned when no limit is given. */
export const DEFAULT_READ_LIMIT = 2000;
/** Characters kept of one line. */
export const MAX_LINE_LENGTH = 2000;

/** Read a text file with line numbers, a window of at most `DEFAULT_READ_LIMIT` lines by default. */
export const readFileTool = defineTool({
  name: "read_file",
  description:
    "Read a text file in the working directory. Lines are numbered from 1. For big files, pass offset " +
    `(first line) and limit (number of lines, default ${DEFAULT_READ_LIMIT}). Binary files are refused.`,
  inputSchema: {
    type: "object",
    properties: {
      path: { type: "string", description: "Path relative to the working directory." },
      offset: {
        description: "First line to return (1-based).",
        type: "integer",
        minimum: 1,
        maximum: Number.MAX_SAFE_INTEGER,
      },
      limit: {
        description: "Number of lines to return.",
        type: "integer",
        minimum: 1,
        maximum: Number.MAX_SAFE_INTEGER,
      },
    },
    required: ["path"],
    additionalProperties: false,
  },
  concurrencySafe: true,
  async run({ path, offset = 1, limit = DEFAULT_READ_LIMIT }, { cwd, signal }) {
    const resolved = resolveInWorkdir(cwd, path);
    if (!resolved.ok) return codedError(resolved.code, resolved.reason);
    const opened = await openRegularFile(resolved.path, path, "read");
    if (!opened.ok) return codedError(opened.code, opened.reason);
    // keep the lines of the window while they fit the budget; count every line to say how many there are
    const window: { number: number; text: string }[] = [];
    const width = String(offset + limit - 1).length;
    let budget = DEFAULT_MAX_OUTPUT_BYTES - 200; // room for the note at the end
    let capped = false;
    const read = await readLines(
      opened.handle,
      { strict: true, maxLineLength: MAX_LINE_LENGTH, signal },
      (text, n, cut) => {
        if (n < offset || n >= offset + limit || capped) return;
        const line = cut ? `${text}… [line cut]` : text;
        budget -= Buffer.byteLength(line) + width + 2;
        if (budget < 0 && window.length > 0) capped = true;
        else window.push({ number: n, text: line });
      },
    ).finally(() => opened.handle.close());
    if (read.kind === "interrupted") return codedError("interrupted", `the user interrupted reading ${path}.`);
    if (read.kind !== "done") return notTextError(read.kind, path, opened.info.size, "read_file shows UTF-8 text only");
    if (read.lines === 0) return toolOutput(`(${path} is empty)`);
    if (offset > read.lines)
      return codedError("invalid_arguments", `offset ${offset} is past the end (${read.lines} lines).`);
    const last = offset + window.length - 1;
    const shown = window.map(({ number, text }) => `${String(number).padStart(String(last).length)}\t${text}`);
    const note = capped ? ` (the result is capped at ${DEFAULT_MAX_OUTPUT_BYTES} bytes)` : "";
    if (last < read.lines)
      shown.push(`[lines ${offset}-${last} of ${read.lines}${note}; pass offset ${last + 1} to read more]`);
    else if (offset > 1) shown.push(`[lines ${offset}-${last} of ${read.lines}]`);
    return toolOutput(shown.join("\n"));
  },
});
