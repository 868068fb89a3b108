/**
 * The chapter text cannot drift from the code: every ```ts excerpt is found verbatim in the
 * sources, every ```diff hunk is a real piece of the diff between s02's loop and this one, the
 * numbers are the code's, and the tables list what the code does.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { exitCodeFor, usage } from "@harness/shared";
import { codeFences, containsRun, normalisedLines, proseOf, readChapterCli, sourceLines } from "@harness/testkit";
import { describe, expect, it } from "vitest";
import { STREAM_RETRIES } from "../src/stream-turn.ts";

const CHAPTER = join(import.meta.dirname, "..");
const REPO = join(CHAPTER, "..");
const READMES = ["README.md", "README.zh.md"] as const;
const CLI = readChapterCli(CHAPTER);

function readme(name: string): string {
  return readFileSync(join(CHAPTER, name), "utf8");
}

const SOURCES = sourceLines([
  join(CHAPTER, "src"),
  join(REPO, "s02-tool-dispatch", "src"),
  join(REPO, "shared", "src"),
]);

/** Every number a pattern captures. */
function captures(text: string, pattern: RegExp): number[] {
  return [...text.matchAll(pattern)].map((m) => Number(m[1]));
}

/** The numbers the text states, each stated at least once per language, always as the code's value. */
const NUMBERS: { what: string; value: number; patterns: RegExp[] }[] = [
  {
    what: "the retries of a stream that failed before any content (STREAM_RETRIES)",
    value: STREAM_RETRIES,
    patterns: [/`STREAM_RETRIES` \((\d+)\)/g, /up to `STREAM_RETRIES` \((\d+)\) times/g, /最多 (\d+) 次/g],
  },
  {
    what: "the exit status of an interrupted run (EXIT_CODES.aborted)",
    value: exitCodeFor("aborted", CLI.exitCodes),
    patterns: [/exits? with (\d+)/g, /状态码 (\d+)/g],
  },
];

/** A diff hunk's two sides: the lines it removes with its context, and the lines it adds with its context. */
function hunkSides(hunk: string): { before: string[]; after: string[] } {
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

describe.each(READMES)("%s", (name) => {
  const text = readme(name);

  it.each(NUMBERS)("states $what as the code's value", ({ value, patterns }) => {
    const found = patterns.flatMap((pattern) => captures(proseOf(text), pattern));
    expect(found.length).toBeGreaterThan(0);
    for (const n of found) expect(n).toBe(value);
  });

  it("lists each exit status as the CLI maps it", () => {
    const rows = [...proseOf(text).matchAll(/^\|\s*(\d+)\s*\|\s*(.+?)\s*\|$/gm)];
    expect(rows.map((row) => Number(row[1]))).toEqual([0, 2, 3, 1, 130]);
    for (const [, code, meaning] of rows) {
      const named = /^`(\w+)`/.exec(meaning)?.[1] ?? "error";
      expect(exitCodeFor(named, CLI.exitCodes), meaning).toBe(Number(code));
    }
  });

  it("shows the CLI's own --help text", () => {
    expect(codeFences(text, "text")).toContain(`${usage(CLI.command, CLI.summary, [], CLI.exitCodes)}\n`);
  });

  it("quotes every ts excerpt verbatim from the sources", () => {
    const excerpts = codeFences(text, "ts");
    expect(excerpts.length).toBeGreaterThanOrEqual(2);
    for (const excerpt of excerpts) {
      const where = SOURCES.filter((source) => containsRun(source.lines, normalisedLines(excerpt)));
      expect(where.length, `not found in the sources:\n${excerpt}`).toBeGreaterThan(0);
    }
  });

  it("shows diff hunks that are real: s02's loop on one side, this chapter's on the other", () => {
    const loop = (chapter: string) =>
      normalisedLines(readFileSync(join(REPO, chapter, "src", "agent-loop.ts"), "utf8"));
    const [s02, s03] = [loop("s02-tool-dispatch"), loop("s03-streaming")];
    const [diff] = codeFences(text, "diff");
    const hunks = diff.split(/^@@.*$/m).filter((h) => h.trim() !== "");
    expect(hunks.length).toBe(7);
    for (const hunk of hunks) {
      const { before, after } = hunkSides(hunk);
      expect(containsRun(s02, before), `not in s02's loop:\n${before.join("\n")}`).toBe(true);
      expect(containsRun(s03, after), `not in s03's loop:\n${after.join("\n")}`).toBe(true);
    }
  });

  it("adds aborted to the stop-reason table", () => {
    expect(text).toMatch(/^\|[^|\n]*Ctrl-C[^|\n]*\|\s*`aborted`\s*\|/m);
  });
});

describe("the chapter text", () => {
  it("gives the same code in English and Chinese", () => {
    const [en, zh] = READMES.map(readme);
    const strip = (block: string) => block.replace(/\s+#.*$/gm, "").replace(/^@@.*$/gm, "@@"); // comments are translated
    for (const lang of ["ts", "text", "sh", "diff"]) {
      expect(codeFences(zh, lang).map(strip), lang).toEqual(codeFences(en, lang).map(strip));
    }
  });
});
