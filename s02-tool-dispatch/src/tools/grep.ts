/**
 * grep: lines matching a regular expression, as file:line: text, capped. The pattern is the
 * model's, so it runs on RE2 (re2js, pure JavaScript): matching takes time linear in the line
 * whatever the pattern. A backtracking engine (JavaScript's RegExp) can take forever on
 * `^(a+)+$`, and holds the thread while it does, Ctrl-C included. RE2 has no backreferences or
 * lookaround, the features that need backtracking; a pattern using them is refused, as ripgrep's
 * default engine refuses it. Files are those `walkFiles` keeps (what the context's `canRead`
 * refuses is passed by), read a chunk at a time; one that cannot be searched is named in a
 * `[skipped: ...]` note, never counted as "no match".
 */
import { stat } from "node:fs/promises";
import { relative } from "node:path";
import { DEFAULT_MAX_OUTPUT_BYTES, type ToolResult, toolOutput } from "@harness/shared";
import picomatch from "picomatch";
import { RE2JS } from "re2js";
import { codedError } from "../dispatch.ts";
import { defineTool } from "../tool.ts";
import { openRegularFile } from "./open-regular-file.ts";
import { readLines } from "./read-lines.ts";
import { resolveInWorkdir } from "./resolve-in-workdir.ts";
import { skippedNotes, type WalkEntry, walkFiles } from "./walk-files.ts";

/** The most matching lines one call returns. */
export const MAX_GREP_MATCHES = 100;
/** Characters of one line that are searched; past them a line is not searched, and a note says so. */
export const MAX_SEARCHED_LINE_LENGTH = 1_000_000;
/** Characters of a matching line shown. */
const SHOWN_LINE_LENGTH = 300;

/** Search file contents with a regular expression, at most `MAX_GREP_MATCHES` lines. */
export const grepTool = defineTool({
  name: "grep",
  description:
    "Search file contents with a regular expression (RE2 syntax, as ripgrep: no lookaround or backreferences). " +
    `Returns file:line: text, at most ${MAX_GREP_MATCHES} matches. Skips .gitignored files, .git and binary files.`,
  inputSchema: {
    type: "object",
    properties: {
      pattern: { type: "string", minLength: 1, description: 'A regular expression, e.g. "TODO|FIXME".' },
      path: { description: "Directory or file to search (default: the working directory).", type: "string" },
      include: { description: 'Only files matching this glob, e.g. "*.ts" or "src/**/*.ts".', type: "string" },
      ignore_case: { description: "Match without regard to case.", type: "boolean" },
    },
    required: ["pattern"],
    additionalProperties: false,
  },
  concurrencySafe: true,
  async run({ pattern, path = ".", include, ignore_case = false }, { cwd, signal, canRead }) {
    const matcher = compilePattern(pattern, ignore_case);
    if ("isError" in matcher) return matcher;
    const base = resolveInWorkdir(cwd, path);
    if (!base.ok) return codedError(base.code, base.reason);
    if (!(await stat(base.path).catch(() => null))) return codedError("not_found", `${path} does not exist.`);
    const search = await searchFiles({ cwd, root: base.path, include, matcher, signal, canRead });
    if (search.interrupted) return codedError("interrupted", "the user interrupted the search.");
    const skipped = skippedNotes(search.skipped);
    if (search.total === 0) return toolOutput([`No lines match /${pattern}/.`, ...skipped].join("\n"));
    // as many lines as the byte budget allows, then what was left out and how to narrow
    const shown: string[] = [];
    let budget = DEFAULT_MAX_OUTPUT_BYTES - 200 - Buffer.byteLength(skipped.join("\n"));
    for (const line of search.matches) {
      budget -= Buffer.byteLength(line) + 1;
      if (budget < 0) break;
      shown.push(line);
    }
    if (search.total > shown.length) {
      shown.push(`[${search.total - shown.length} more matches not shown; narrow the search with path or include]`);
    }
    return toolOutput([...shown, ...skipped].join("\n"));
  },
});

/** Anything that tells whether a line matches: grep's RE2 pattern (or, in the benchmark, a RegExp). */
export interface LineMatcher {
  /** True when the pattern matches anywhere in `line`. */
  test(line: string): boolean;
}

/** Compile the model's pattern with RE2, or the invalid_arguments error naming what is wrong with it. */
export function compilePattern(pattern: string, ignoreCase: boolean): LineMatcher | ToolResult {
  try {
    return RE2JS.compile(pattern, ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return codedError("invalid_arguments", `pattern: ${why} (grep takes RE2 syntax: no backreferences or lookaround)`);
  }
}

/** What to search, and with what. */
export interface SearchOptions {
  cwd: string;
  /** A directory inside `cwd` to walk, or one file to search. */
  root: string;
  /** Only files under `root` that match this glob; without a slash it matches the name at any depth. */
  include?: string;
  matcher: LineMatcher;
  signal?: AbortSignal;
  /** Files and directories under `root` that this refuses are passed by (see `ToolContext.canRead`). */
  canRead?: (path: string) => boolean;
}

/** What a search found. */
export interface Search {
  /** The first `MAX_GREP_MATCHES` matching lines, as `file:line: text`. */
  matches: string[];
  /** Every matching line, shown or not. */
  total: number;
  /** Why each file (or part of one) that could not be searched was not. */
  skipped: string[];
  interrupted: boolean;
}

/**
 * Search every file under `root` that the ignore rules keep, line by line.
 * Contract: a file that cannot be read, or a line too long to search, lands in `skipped`, never
 * silently in "no match"; binary files (a NUL byte) are left out; stops when `signal` fires.
 */
export async function searchFiles(options: SearchOptions): Promise<Search> {
  const { cwd, root, matcher, signal, canRead } = options;
  const include = options.include;
  const isIncluded = include ? picomatch(include, { dot: true, basename: !include.includes("/") }) : () => true;
  const search: Search = { matches: [], total: 0, skipped: [], interrupted: false };
  for await (const entry of entriesOf(cwd, root, signal, canRead)) {
    const rel = relative(cwd, entry.path);
    if (entry.kind === "unlisted") {
      search.skipped.push(entry.reason); // whatever it holds might have matched
      continue;
    }
    if (entry.path !== root && !isIncluded(relative(root, entry.path))) continue;
    if (entry.kind === "not_a_file") {
      search.skipped.push(`${rel} is not a regular file.`);
      continue;
    }
    const opened = await openRegularFile(entry.path, rel, "read");
    if (!opened.ok) {
      search.skipped.push(opened.reason);
      continue;
    }
    // a file's matches count only once it has been read to the end as text
    const found: string[] = [];
    let count = 0;
    let longLine = 0;
    const read = await readLines(
      opened.handle,
      { strict: false, maxLineLength: MAX_SEARCHED_LINE_LENGTH, signal },
      (text, n, cut) => {
        const line = text.endsWith("\r") ? text.slice(0, -1) : text;
        if (cut && longLine === 0) longLine = n;
        if (!matcher.test(line)) return;
        count++;
        if (search.matches.length + found.length < MAX_GREP_MATCHES) {
          found.push(`${rel}:${n}: ${line.trim().slice(0, SHOWN_LINE_LENGTH)}`);
        }
      },
    ).finally(() => opened.handle.close());
    if (read.kind === "interrupted") return { ...search, interrupted: true };
    if (read.kind === "binary") {
      if (entry.path === root) search.skipped.push(`${rel} is a binary file.`); // named, so say why it was not searched
      continue;
    }
    search.matches.push(...found);
    search.total += count;
    if (longLine > 0) {
      search.skipped.push(`${rel} line ${longLine} past its first ${MAX_SEARCHED_LINE_LENGTH} characters.`);
    }
  }
  return { ...search, interrupted: signal?.aborted === true };
}

/** The walk under a directory, or the one file (or pipe) a path names. */
async function* entriesOf(
  cwd: string,
  root: string,
  signal?: AbortSignal,
  canRead?: (path: string) => boolean,
): AsyncGenerator<WalkEntry> {
  const info = await stat(root);
  if (info.isDirectory()) yield* walkFiles(cwd, root, signal, canRead);
  else yield { kind: info.isFile() ? "file" : "not_a_file", path: root };
}
