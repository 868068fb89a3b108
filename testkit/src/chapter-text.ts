/**
 * Keeping a chapter's text true to its code: each chapter's readme test reads its README with
 * these, and fails when an excerpt is no longer in the sources. Whitespace is normalised per
 * line, so an excerpt may be indented differently from the file it quotes.
 */
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
