/** glob: files by pattern, newest first, capped. node_modules and .git are skipped. */
import { stat } from "node:fs/promises";
import { relative } from "node:path";
import { toolOutput } from "@harness/shared";
import { glob } from "tinyglobby";
import { z } from "zod";
import { codedError } from "../dispatch.ts";
import { defineTool } from "../tool.ts";
import { resolveInWorkdir } from "./resolve-in-workdir.ts";

/** The most paths one call returns. */
export const MAX_GLOB_RESULTS = 100;
/** Directories no search descends into. */
export const SKIPPED_DIRECTORIES = ["**/node_modules/**", "**/.git/**"];

/** List files by glob pattern, newest first, at most `MAX_GLOB_RESULTS`. */
export const globTool = defineTool({
  name: "glob",
  description: `Find files by glob pattern (e.g. "**/*.ts"), newest first, at most ${MAX_GLOB_RESULTS}. Skips node_modules and .git.`,
  schema: z.object({
    pattern: z.string().min(1).describe('A glob pattern relative to path, e.g. "src/**/*.ts".'),
    path: z.string().optional().describe("Directory to search in (default: the working directory)."),
  }),
  concurrencySafe: true,
  async run({ pattern, path = "." }, { cwd }) {
    const base = resolveInWorkdir(cwd, path);
    if (!base.ok) return codedError("outside_workdir", base.reason);
    if (pattern.startsWith("/") || pattern.split("/").includes("..")) {
      return codedError("outside_workdir", `the pattern ${pattern} reaches outside ${path}; use a relative pattern.`);
    }
    const found = await glob(pattern, {
      cwd: base.path,
      absolute: true,
      dot: true,
      onlyFiles: true,
      followSymbolicLinks: false,
      ignore: SKIPPED_DIRECTORIES,
    });
    // a pattern can still reach through a linked directory: keep only what really is inside
    const files = found.filter((file) => resolveInWorkdir(cwd, file).ok);
    const dated = await Promise.all(
      files.map(async (file) => ({ file, mtime: (await stat(file).catch(() => null))?.mtimeMs ?? 0 })),
    );
    dated.sort((a, b) => b.mtime - a.mtime || a.file.localeCompare(b.file));
    if (dated.length === 0) return toolOutput(`No files match ${pattern}.`);
    const shown = dated.slice(0, MAX_GLOB_RESULTS).map((d) => relative(cwd, d.file));
    if (dated.length > MAX_GLOB_RESULTS)
      shown.push(`[${dated.length - MAX_GLOB_RESULTS} more not shown; narrow the pattern]`);
    return toolOutput(shown.join("\n"));
  },
});
