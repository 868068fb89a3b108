/**
 * edit_file: replace one exact string. It must match exactly once; no match or several matches
 * is an error that says which, so the model can widen its string instead of editing the wrong spot.
 * It edits what read_file reads (a regular file of UTF-8 text) and refuses the rest, and it writes
 * only from the edit on: every byte before it, and every byte after it (a BOM, CRLF line ends, a
 * missing final newline), stays as it was.
 */
import { toolOutput } from "@harness/shared";
import { codedError } from "../dispatch.ts";
import { defineTool } from "../tool.ts";
import { openRegularFile, writeAt } from "./open-regular-file.ts";
import { decodeText, notTextError } from "./read-lines.ts";
import { resolveInWorkdir } from "./resolve-in-workdir.ts";

/** Replace one exact, unique string in a file. */
export const editFileTool = defineTool({
  name: "edit_file",
  description:
    "Replace old_string with new_string in a file. old_string must match the file exactly once " +
    "(include surrounding lines to make it unique).",
  inputSchema: {
    type: "object",
    properties: {
      path: { type: "string", description: "Path relative to the working directory." },
      old_string: { type: "string", minLength: 1, description: "The exact text to replace." },
      new_string: { type: "string", description: "The text to put in its place." },
    },
    required: ["path", "old_string", "new_string"],
    additionalProperties: false,
  },
  concurrencySafe: false,
  async run({ path, old_string, new_string }, { cwd }) {
    const resolved = resolveInWorkdir(cwd, path);
    if (!resolved.ok) return codedError(resolved.code, resolved.reason);
    const opened = await openRegularFile(resolved.path, path, "write");
    if (!opened.ok) return codedError(opened.code, opened.reason);
    const { handle } = opened;
    try {
      const bytes = await handle.readFile();
      const decoded = decodeText(bytes);
      if (decoded.kind !== "text") {
        return notTextError(decoded.kind, path, bytes.length, "edit_file changes UTF-8 text only");
      }
      const text = decoded.text;
      const lines = matchLines(text, old_string);
      if (lines.length === 0) return codedError("no_match", `old_string was not found in ${path}.`);
      if (lines.length > 1) {
        return codedError(
          "several_matches",
          `old_string matches ${lines.length} times in ${path} (lines ${lines.join(", ")}); include more context.`,
        );
      }
      // cut the bytes, not the text: what lies before and after the match is written back as it was read
      const at = text.indexOf(old_string);
      const start = Buffer.byteLength(text.slice(0, at));
      const end = start + Buffer.byteLength(old_string);
      const tail = Buffer.concat([Buffer.from(new_string), bytes.subarray(end)]);
      await writeAt(handle, tail, start);
      await handle.truncate(start + tail.length);
      return toolOutput(`Edited ${path} at line ${lines[0]}.`);
    } finally {
      await handle.close();
    }
  },
});

/** The line number of each (non-overlapping) match. */
function matchLines(text: string, needle: string): number[] {
  const lines: number[] = [];
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) {
    lines.push(text.slice(0, at).split("\n").length);
  }
  return lines;
}
