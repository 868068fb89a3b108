/**
 * Keeping a chapter's text true to its code: each chapter's readme test reads its README with
 * these, and fails when an excerpt is no longer in the sources. Whitespace is normalised per
 * line, so an excerpt may be indented differently from the file it quotes.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** The bodies of the fenced blocks with this info string, indented ones (in a list item) included. */
export function codeFences(markdown: string, lang: string): string[] {
  const found: string[] = [];
  for (const match of markdown.matchAll(/^( *)```(\S*)\n([\s\S]*?)^\1```\s*$/gm)) {
    if (match[2] === lang) found.push(match[3]);
  }
  return found;
}

/** The text outside fenced blocks; with `inlineCode: false`, outside inline code spans too. */
export function proseOf(markdown: string, options: { inlineCode?: boolean } = {}): string {
  const outsideFences = markdown.replace(/^( *)```[\s\S]*?^\1```\s*$/gm, "");
  return options.inlineCode === false ? outsideFences.replace(/``[^\n]*?``|`[^`\n]*`/g, "") : outsideFences;
}

/** Lines with their whitespace normalised, blank lines dropped. */
export function normalisedLines(text: string): string[] {
  return text
    .split("\n")
    .map((line) => line.trim().replace(/\s+/g, " "))
    .filter((line) => line !== "");
}

/** True when `run` is a contiguous run of `lines`. */
export function containsRun(lines: readonly string[], run: readonly string[]): boolean {
  for (let start = 0; start + run.length <= lines.length; start++) {
    if (run.every((line, i) => lines[start + i] === line)) return true;
  }
  return false;
}

/** Every `.ts` file under these directories, as normalised lines. */
export function sourceLines(dirs: readonly string[]): { file: string; lines: string[] }[] {
  return dirs
    .flatMap((dir) =>
      readdirSync(dir, { withFileTypes: true, recursive: true })
        .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
        .map((entry) => join(entry.parentPath, entry.name)),
    )
    .map((file) => ({ file, lines: normalisedLines(readFileSync(file, "utf8")) }));
}

/**
 * A function of a source file as a text's "whole loop" block shows it: from the doc comment above
 * the line that starts with `signature` to the first line that is `}` after it, trailing
 * whitespace trimmed. Throws when the file has no such line.
 */
export function functionSource(path: string, signature = "export async function agentLoop("): string {
  const lines = readFileSync(path, "utf8").split("\n");
  const at = lines.findIndex((line) => line.startsWith(signature));
  if (at < 0) throw new Error(`${path} has no line starting with ${signature}`);
  const start = lines.slice(0, at).findLastIndex((line) => line.startsWith("/**"));
  const end = lines.indexOf("}", at);
  return lines
    .slice(start, end + 1)
    .map((line) => line.trimEnd())
    .join("\n");
}

/** A diff hunk's two sides, normalised: the lines it removes with its context, and the lines it adds with its context. */
export function hunkSides(hunk: string): { before: string[]; after: string[] } {
  const lines = hunk.split("\n").filter((line) => line !== "");
  const side = (keep: string) =>
    normalisedLines(
      lines
        .filter((line) => line[0] === " " || line[0] === keep)
        .map((line) => line.slice(1))
        .join("\n"),
    );
  return { before: side("-"), after: side("+") };
}

/** The lines a diff removes or adds, each with its sign, trailing whitespace trimmed; file headers left out. */
export function changedLines(diff: string): string[] {
  return diff
    .split("\n")
    .filter((line) => /^[-+]/.test(line) && !/^(?:---|\+\+\+) /.test(line))
    .map((line) => line.trimEnd());
}

/** The lines of a source file's first doc comment (its header), as written. */
export function headerComment(path: string): string[] {
  const lines = readFileSync(path, "utf8").split("\n");
  // a one-line header (`/** s04: s03's loop, plus ... */`) is the file's first line alone
  if (lines[0]?.startsWith("/**") && lines[0].trimEnd().endsWith("*/")) return [lines[0]];
  return lines.slice(0, lines.indexOf(" */") + 1);
}

/** A sample's command line split into words, "..." and '...' quoting undone (what the samples use). */
export function commandWords(command: string): string[] {
  return [...command.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]);
}

/**
 * What is wrong with the diff a text shows (`shown`: its ```diff blocks, joined) between the
 * previous chapter's loop file `before` and this chapter's `after`: a hunk whose sides are not
 * runs of those files, or a line the real diff (`git diff --no-index`) changes that the text
 * leaves out, the files' header comments aside. Empty when the shown diff is true and whole.
 */
export function lessonDiffProblems(shown: string, before: string, after: string): string[] {
  const [from, to] = [before, after].map((path) => normalisedLines(readFileSync(path, "utf8")));
  const problems: string[] = [];
  const hunks = shown.split(/^@@.*$/m).filter((hunk) => !/^\s*$|^---/.test(hunk));
  hunks.forEach((hunk, i) => {
    const sides = hunkSides(hunk);
    if (!containsRun(from, sides.before))
      problems.push(`hunk ${i + 1} is not in ${before}:\n${sides.before.join("\n")}`);
    if (!containsRun(to, sides.after)) problems.push(`hunk ${i + 1} is not in ${after}:\n${sides.after.join("\n")}`);
  });
  const git = spawnSync("git", ["diff", "--no-index", "--no-color", "--", before, after], { encoding: "utf8" });
  if (git.status !== 1) return [...problems, `git diff --no-index found no difference (${git.stderr.trim()})`];
  const shownLines = changedLines(shown);
  const headers = { "-": headerComment(before), "+": headerComment(after) };
  for (const line of changedLines(git.stdout)) {
    const header = headers[line[0] as "-" | "+"];
    if (!header.includes(line.slice(1)) && !shownLines.includes(line)) problems.push(`left out: ${line}`);
  }
  return problems;
}

/** The number of hunks in a text's ```diff blocks (joined). */
export function hunkCount(shown: string): number {
  return shown.split(/^@@.*$/m).filter((hunk) => !/^\s*$|^---/.test(hunk)).length;
}
