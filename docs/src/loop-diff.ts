/**
 * The loop diff, measured: how many lines the diff of two chapters' `src/agent-loop.ts` changes,
 * and how many of those are comment or import lines (churn that hides the lesson).
 *
 * The measure, precisely:
 *
 * - The diff is git's (`git diff --no-index -U0 --diff-algorithm=myers`, the real diff the chapter
 *   texts show), so each hunk is one run of consecutive changed lines: some removed, then some
 *   added. Whitespace counts; a blank line is a line like any other.
 * - A hunk's changed lines are max(lines removed, lines added): a line rewritten counts once, a
 *   line added or removed counts once. A diff's changed lines are the sum over its hunks.
 * - A comment line is one whose content is only comment: every non-blank character of it lies in
 *   a `//` or `/* … *\/` comment (a doc comment's lines, a header line); a line of code with a
 *   comment after it is code. An import line is a line of an import declaration, from `import` to
 *   its semicolon (`import type` and each line of a multi-line import alike). Both are read from
 *   each file's syntax (the TypeScript parser), the removed lines in the old file, the added ones
 *   in the new.
 * - A hunk's comment-or-import lines are max(such lines removed, such lines added), summed over
 *   hunks like the changed lines, so they are never more than the changed lines.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import ts from "typescript";

/** The most lines a consecutive loop diff may change (issue 23's target). */
export const MAX_LOOP_DIFF_LINES = 35;

/** The most of those that may be comment or import lines. */
export const MAX_LOOP_DIFF_COMMENT_OR_IMPORT_LINES = 5;

/** One hunk of a `-U0` diff: the old file's lines it removes and the new file's lines it adds (1-based). */
export interface DiffHunk {
  removed: number[];
  added: number[];
}

/** What a loop diff changes, by the measure above. */
export interface LoopDiff {
  /** Hunks in the diff. */
  hunks: number;
  /** Lines changed: per hunk max(removed, added), summed. */
  changed: number;
  /** Of those, comment or import lines: per hunk max(removed, added) of such lines, summed. */
  commentOrImport: number;
}

/** Measure the diff from the file `before` to the file `after`. */
export function measureLoopDiff(before: string, after: string): LoopDiff {
  const hunks = diffHunks(before, after);
  const [old, now] = [lineKinds(readFileSync(before, "utf8")), lineKinds(readFileSync(after, "utf8"))];
  let changed = 0;
  let commentOrImport = 0;
  for (const hunk of hunks) {
    changed += Math.max(hunk.removed.length, hunk.added.length);
    const churn = (lines: number[], kinds: LineKinds) =>
      lines.filter((line) => kinds.comment.has(line) || kinds.import.has(line)).length;
    commentOrImport += Math.max(churn(hunk.removed, old), churn(hunk.added, now));
  }
  return { hunks: hunks.length, changed, commentOrImport };
}

/** The hunks of git's `-U0` diff of two files (none when they are equal). */
export function diffHunks(before: string, after: string): DiffHunk[] {
  const git = spawnSync(
    "git",
    ["diff", "--no-index", "--no-color", "--no-ext-diff", "-U0", "--diff-algorithm=myers", "--", before, after],
    { encoding: "utf8" },
  );
  // --no-index exits 1 when the files differ, 0 when they do not
  if (git.status !== 0 && git.status !== 1) throw new Error(`git diff failed: ${git.stderr.trim() || git.error}`);
  return parseHunks(git.stdout);
}

/** The hunks of a unified diff's text, read from its `@@ -a,b +c,d @@` lines. */
export function parseHunks(diff: string): DiffHunk[] {
  const range = (start: string, count: string | undefined) => {
    const n = count === undefined ? 1 : Number(count);
    return Array.from({ length: n }, (_, i) => Number(start) + i);
  };
  return [...diff.matchAll(/^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/gm)].map((m) => ({
    removed: range(m[1], m[2]),
    added: range(m[3], m[4]),
  }));
}

/** The 1-based lines of a file that are only comment, and the lines of its import declarations. */
export interface LineKinds {
  comment: Set<number>;
  import: Set<number>;
}

/** Read which lines of TypeScript `source` are comment lines and which are import lines. */
export function lineKinds(source: string): LineKinds {
  const file = ts.createSourceFile("loop.ts", source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const inComment = new Uint8Array(source.length);
  const seen = new Set<number>();
  const mark = (ranges: readonly ts.CommentRange[] | undefined) => {
    for (const range of ranges ?? []) {
      if (seen.has(range.pos)) continue;
      seen.add(range.pos);
      inComment.fill(1, range.pos, range.end);
    }
  };
  // every comment sits in the trivia before or after some token; visit every token
  const visit = (node: ts.Node) => {
    mark(ts.getLeadingCommentRanges(source, node.pos));
    mark(ts.getTrailingCommentRanges(source, node.end));
    for (const child of node.getChildren(file)) visit(child);
  };
  visit(file);

  const comment = new Set<number>();
  let offset = 0;
  source.split("\n").forEach((text, i) => {
    let content = false;
    let code = false;
    for (let k = 0; k < text.length; k++) {
      if (/\s/.test(text[k])) continue;
      content = true;
      if (!inComment[offset + k]) code = true;
    }
    if (content && !code) comment.add(i + 1);
    offset += text.length + 1;
  });

  const imports = new Set<number>();
  for (const statement of file.statements) {
    if (!ts.isImportDeclaration(statement) && !ts.isImportEqualsDeclaration(statement)) continue;
    const first = file.getLineAndCharacterOfPosition(statement.getStart(file)).line + 1;
    const last = file.getLineAndCharacterOfPosition(statement.getEnd()).line + 1;
    for (let line = first; line <= last; line++) imports.add(line);
  }
  return { comment, import: imports };
}
