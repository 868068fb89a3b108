/**
 * glob: files by pattern, newest first, capped. The files are those `walkFiles` keeps: what
 * `.gitignore` ignores, `.git/`, `.harness/` and what the context's `canRead` refuses are never listed. The pattern is matched by
 * picomatch, the matcher most Node globbing libraries use.
 */
import { stat } from "node:fs/promises";
import { join, relative } from "node:path";
import { DEFAULT_MAX_OUTPUT_BYTES, toolOutput } from "@harness/shared";
import picomatch from "picomatch";
import { codedError } from "../dispatch.ts";
import { defineTool } from "../tool.ts";
import { resolveInWorkdir } from "./resolve-in-workdir.ts";
import { skippedNotes, walkFiles } from "./walk-files.ts";

/** The most paths one call returns. */
export const MAX_GLOB_RESULTS = 100;

/** List files by glob pattern, newest first, at most `MAX_GLOB_RESULTS`. */
export const globTool = defineTool({
  name: "glob",
  description: `Find files by glob pattern (e.g. "**/*.ts"), newest first, at most ${MAX_GLOB_RESULTS}. Skips .gitignored files and .git.`,
  inputSchema: {
    type: "object",
    properties: {
      pattern: { type: "string", minLength: 1, description: 'A glob pattern relative to path, e.g. "src/**/*.ts".' },
      path: { description: "Directory to search in (default: the working directory).", type: "string" },
    },
    required: ["pattern"],
    additionalProperties: false,
  },
  concurrencySafe: true,
  async run({ pattern, path = "." }, { cwd, signal, canRead }) {
    const base = resolveInWorkdir(cwd, path);
    if (!base.ok) return codedError(base.code, base.reason);
    if (pattern.startsWith("/") || pattern.split("/").includes("..")) {
      return codedError("outside_workdir", `the pattern ${pattern} reaches outside ${path}; use a relative pattern.`);
    }
    const info = await stat(base.path).catch(() => null);
    if (!info) return codedError("not_found", `${path} does not exist.`);
    if (!info.isDirectory()) return codedError("not_a_file", `${path} is not a directory; glob searches directories.`);
    // walk only below the pattern's fixed start ("src" for "src/**/*.ts")
    const start = join(base.path, picomatch.scan(pattern).base);
    const isMatch = picomatch(pattern, { dot: true });
    const files: string[] = [];
    const unlisted: string[] = [];
    if (
      await stat(start).then(
        (s) => s.isDirectory(),
        () => false,
      )
    ) {
      for await (const entry of walkFiles(cwd, start, signal, canRead)) {
        if (entry.kind === "unlisted") unlisted.push(entry.reason);
        else if (entry.kind === "file" && isMatch(relative(base.path, entry.path))) files.push(entry.path);
      }
    }
    if (signal?.aborted) return codedError("interrupted", "the user interrupted the search.");
    const skipped = skippedNotes(unlisted);
    const dated = await Promise.all(
      files.map(async (file) => ({ file, mtime: (await stat(file).catch(() => null))?.mtimeMs ?? 0 })),
    );
    dated.sort((a, b) => b.mtime - a.mtime || a.file.localeCompare(b.file));
    if (dated.length === 0) return toolOutput([`No files match ${pattern}.`, ...skipped].join("\n"));
    // as many paths as the cap and the byte budget allow, then what was left out
    const shown: string[] = [];
    let budget = DEFAULT_MAX_OUTPUT_BYTES - 200 - Buffer.byteLength(skipped.join("\n"));
    for (const { file } of dated.slice(0, MAX_GLOB_RESULTS)) {
      const line = relative(cwd, file);
      budget -= Buffer.byteLength(line) + 1;
      if (budget < 0) break;
      shown.push(line);
    }
    if (dated.length > shown.length)
      shown.push(`[${dated.length - shown.length} more not shown; narrow the pattern or the path]`);
    return toolOutput([...shown, ...skipped].join("\n"));
  },
});
