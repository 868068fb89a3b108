/** grep: lines matching a regular expression, as file:line: text, capped. Binary files are skipped. */
import { readFile, stat } from "node:fs/promises";
import { relative } from "node:path";
import { toolOutput } from "@harness/shared";
import { glob } from "tinyglobby";
import { z } from "zod";
import { codedError } from "../dispatch.ts";
import { defineTool } from "../tool.ts";
import { SKIPPED_DIRECTORIES } from "./glob.ts";
import { looksBinary } from "./read-file.ts";
import { resolveInWorkdir } from "./resolve-in-workdir.ts";

/** The most matching lines one call returns. */
export const MAX_GREP_MATCHES = 100;

/** Search file contents with a regular expression, at most `MAX_GREP_MATCHES` lines. */
export const grepTool = defineTool({
  name: "grep",
  description:
    `Search file contents with a JavaScript regular expression. Returns file:line: text, at most ${MAX_GREP_MATCHES} ` +
    "matches. Skips node_modules, .git and binary files.",
  schema: z.object({
    pattern: z.string().min(1).describe('A regular expression, e.g. "TODO|FIXME".'),
    path: z.string().optional().describe("Directory or file to search (default: the working directory)."),
    include: z.string().optional().describe('Only files matching this glob, e.g. "**/*.ts".'),
    ignore_case: z.boolean().optional().describe("Match without regard to case."),
  }),
  concurrencySafe: true,
  async run({ pattern, path = ".", include = "**/*", ignore_case }, { cwd, signal }) {
    let regex: RegExp;
    try {
      regex = new RegExp(pattern, ignore_case ? "i" : "");
    } catch (error) {
      return codedError("invalid_arguments", `pattern: ${(error as Error).message}`);
    }
    const base = resolveInWorkdir(cwd, path);
    if (!base.ok) return codedError("outside_workdir", base.reason);
    const info = await stat(base.path).catch(() => null);
    if (!info) return codedError("not_found", `${path} does not exist.`);
    const files = info.isFile()
      ? [base.path]
      : (
          await glob(include, {
            cwd: base.path,
            absolute: true,
            dot: true,
            followSymbolicLinks: false,
            ignore: SKIPPED_DIRECTORIES,
          })
        )
          .filter((file) => resolveInWorkdir(cwd, file).ok) // never read through a link (or an include) that leads out
          .sort();
    const matches: string[] = [];
    let total = 0;
    for (const file of files) {
      if (signal?.aborted) break;
      if (await looksBinary(file).catch(() => true)) continue;
      const lines = (await readFile(file, "utf8").catch(() => "")).split("\n");
      lines.forEach((line, i) => {
        if (!regex.test(line)) return;
        total++;
        if (matches.length < MAX_GREP_MATCHES)
          matches.push(`${relative(cwd, file)}:${i + 1}: ${line.trim().slice(0, 300)}`);
      });
    }
    if (total === 0) return toolOutput(`No lines match /${pattern}/.`);
    if (total > matches.length) matches.push(`[${total - matches.length} more matches not shown; narrow the search]`);
    return toolOutput(matches.join("\n"));
  },
});
