/**
 * edit_file: replace one exact string. It must match exactly once; no match or several matches
 * is an error that says which, so the model can widen its string instead of editing the wrong spot.
 */
import { readFile, writeFile } from "node:fs/promises";
import { toolOutput } from "@harness/shared";
import { z } from "zod";
import { codedError } from "../dispatch.ts";
import { defineTool } from "../tool.ts";
import { resolveInWorkdir } from "./resolve-in-workdir.ts";

/** Replace one exact, unique string in a file. */
export const editFileTool = defineTool({
  name: "edit_file",
  description:
    "Replace old_string with new_string in a file. old_string must match the file exactly once " +
    "(include surrounding lines to make it unique).",
  schema: z.object({
    path: z.string().describe("Path relative to the working directory."),
    old_string: z.string().min(1).describe("The exact text to replace."),
    new_string: z.string().describe("The text to put in its place."),
  }),
  concurrencySafe: false,
  async run({ path, old_string, new_string }, { cwd }) {
    const resolved = resolveInWorkdir(cwd, path);
    if (!resolved.ok) return codedError("outside_workdir", resolved.reason);
    const text = await readFile(resolved.path, "utf8").catch(() => null);
    if (text === null) return codedError("not_found", `${path} does not exist.`);
    const lines = matchLines(text, old_string);
    if (lines.length === 0) return codedError("no_match", `old_string was not found in ${path}.`);
    if (lines.length > 1) {
      return codedError(
        "several_matches",
        `old_string matches ${lines.length} times in ${path} (lines ${lines.join(", ")}); include more context.`,
      );
    }
    const at = text.indexOf(old_string);
    await writeFile(resolved.path, text.slice(0, at) + new_string + text.slice(at + old_string.length));
    return toolOutput(`Edited ${path} at line ${lines[0]}.`);
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
