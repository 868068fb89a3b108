/**
 * The one chapter-text suite (issue 23 item 8): what every chapter's `test/readme.test.ts` checks
 * of its two texts, written once. A chapter calls `chapterTextSuite` with its own facts; its file
 * then keeps only what is its own (its tables read from its code, its samples run).
 *
 * For each text (README.md, README.zh.md): every ```ts excerpt is found verbatim in the sources;
 * the whole loop is one ```ts block equal to the source's function; each diff the text shows is
 * real and whole (`lessonDiffProblems`: every hunk a run of both files, no change left out but the
 * files' header comments); the CLI's `--help` is shown as the CLI prints it (the whole text, or
 * only the lines of the options the chapter adds, the rest being on the options page); the exit
 * status table maps each stop reason as the CLI does. Across the two: the same code, in the same
 * order and places. And once a chapter has left TEXTS_NOT_YET_REWRITTEN (docs/src): its main
 * path within the limit, the Chinese in step, and the reading-time line as measured.
 *
 * testkit imports no course package: the CLI's help printer and exit mapping come in with the facts.
 */
import { readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  type ChapterTextFile,
  codeDifferences,
  mainPathProblems,
  readingFigures,
  readingTimeProblems,
} from "./chapter-measures.ts";
import {
  codeFences,
  containsRun,
  functionSource,
  hunkCount,
  lessonDiffProblems,
  normalisedLines,
  proseOf,
  sourceLines,
} from "./chapter-text.ts";

/** The two texts of a chapter. */
export const CHAPTER_TEXTS: readonly ChapterTextFile[] = ["README.md", "README.zh.md"];

/** What the suite reads of a chapter's exported `chapter` (a `ChapterCli`). */
export interface ChapterCliFacts {
  command: string;
  summary: string;
  flags?: readonly { name: string; help: string }[];
  exitCodes?: { readonly [reason: string]: number };
  commandHelp?: readonly string[];
  environment?: readonly string[];
}

/** A diff a text shows, and the two files it is the diff of. */
export interface LessonDiff {
  /** What it is, for the test's name: `s06's loop against this one`. */
  label: string;
  /** The file before (the previous chapter's). */
  from: string;
  /** The file after (this chapter's). */
  to: string;
  /** Which of the text's ```diff blocks it is, from 0; left out: all of them, joined. */
  block?: number;
  /** How many hunks it has, when the chapter pins it. */
  hunks?: number;
  /** How many `+`/`-` lines it has, when the chapter pins it. */
  changedLines?: number;
}

/** A chapter's own facts, for `chapterTextSuite`. */
export interface ChapterTextFacts {
  /** The chapter's folder (absolute): its texts, its `src/`. */
  chapter: string;
  /** The folders whose `.ts` files the excerpts quote (default: the chapter's `src/`). */
  sources?: readonly string[];
  /** At least this many ```ts excerpts in each text. */
  excerpts: number;
  /**
   * The whole loop: one ```ts block holding `export async function agentLoop(` is the function as
   * `file` (default the chapter's src/agent-loop.ts) has it, its doc comment included unless
   * `docComment` is false.
   */
  wholeLoop?: { file?: string; docComment?: boolean };
  /** The diffs the text shows. */
  diffs?: readonly LessonDiff[];
  /** The CLI, when the text shows its help or its exit statuses. */
  cli?: {
    /** The chapter's exported `chapter`. */
    chapter: ChapterCliFacts;
    /**
     * The runner's help printer (`usage` of @harness/cli). Its third parameter is the chapter's
     * flags, as `chapter.flags` holds them (typed here as nothing testkit needs to know).
     */
    usage(
      command: string,
      summary: string,
      flags: never[],
      exitCodes?: { readonly [reason: string]: number },
      commands?: readonly string[],
      environment?: readonly string[],
    ): string;
    /** The runner's exit mapping (`exitCodeFor` of @harness/cli). */
    exitCodeFor(reason: string, codes?: { readonly [reason: string]: number }): number;
    /** The previous chapter's `chapter`: the options it has are not this chapter's own. */
    previous?: ChapterCliFacts;
    /** The stop reasons of the text's exit status table, row by row (`error`, `interrupted` by meaning). */
    exitTable?: readonly string[];
    /** Whether the text shows the help (default true). */
    help?: boolean;
  };
}

/** The chapters docs/src/texts-not-yet-rewritten.ts lists: the measures do not hold them yet. */
export function textsNotYetRewritten(repoRoot: string): string[] {
  const source = readFileSync(join(repoRoot, "docs", "src", "texts-not-yet-rewritten.ts"), "utf8");
  const list = /TEXTS_NOT_YET_REWRITTEN[^=]*=\s*\[([\s\S]*?)\]/.exec(source)?.[1] ?? "";
  return [...list.matchAll(/"([^"]+)"/g)].map((match) => match[1]);
}

/**
 * The lines of `--help` that name the options a chapter adds: each of its flags' help lines (with
 * their continuation lines) that the previous chapter does not have.
 */
export function ownHelpLines(chapter: ChapterCliFacts, previous: ChapterCliFacts | undefined): string {
  const before = new Set((previous?.flags ?? []).map((flag) => flag.name));
  return (chapter.flags ?? [])
    .filter((flag) => !before.has(flag.name))
    .map((flag) => `  ${flag.help}`)
    .join("\n");
}

/** The rows of a text's exit status table: each number in a first cell, and the stop reason its row names. */
export function exitRows(markdown: string): { code: number; reason: string; row: string }[] {
  return [...proseOf(markdown).matchAll(/^\|\s*(\d+)\s*\|\s*([^|\n]*?)\s*\|.*$/gm)].map((match) => {
    const named = /^`(\w+)`/.exec(match[2])?.[1];
    const reason = named ?? (/interrupt|中断/i.test(match[2]) ? "interrupted" : "error");
    return { code: Number(match[1]), reason, row: match[0] };
  });
}

/** Where a text's ```ts excerpts are not all in the sources, or fewer than `min`. */
export function excerptProblems(
  markdown: string,
  sources: readonly { file: string; lines: string[] }[],
  min: number,
): string[] {
  const excerpts = codeFences(markdown, "ts");
  const problems = excerpts.length < min ? [`${excerpts.length} ts excerpts; at least ${min}`] : [];
  for (const excerpt of excerpts) {
    if (!sources.some((source) => containsRun(source.lines, normalisedLines(excerpt)))) {
      problems.push(`not found in the sources:\n${excerpt}`);
    }
  }
  return problems;
}

/**
 * Where a text's whole loop is not the source's: not exactly one ```ts block holding
 * `export async function agentLoop(`, or that block not the function as `loopFile` has it (its
 * doc comment included unless `docComment` is false; trailing spaces aside).
 */
export function wholeLoopProblems(markdown: string, loopFile: string, docComment = true): string[] {
  const signature = "export async function agentLoop(";
  const source = functionSource(loopFile);
  const expected = `${docComment ? source : source.slice(source.indexOf(signature))}\n`;
  const whole = codeFences(markdown, "ts").filter((block) => block.includes(signature));
  if (whole.length !== 1) return [`${whole.length} ts blocks hold ${signature}; one does`];
  return whole[0].replace(/[ \t]+$/gm, "") === expected
    ? []
    : [`the whole loop is not agentLoop as ${loopFile} has it`];
}

/** A diff's problems (`lessonDiffProblems`) split: hunks not in the files, and what the real diff has that it leaves out. */
export function diffProblems(markdown: string, diff: LessonDiff): { hunks: string[]; whole: string[] } {
  const blocks = codeFences(markdown, "diff");
  const shown = diff.block === undefined ? blocks.join("") : (blocks[diff.block] ?? "");
  if (shown === "") return { hunks: [`no diff block${diff.block === undefined ? "" : ` ${diff.block}`}`], whole: [] };
  const problems = lessonDiffProblems(shown, diff.from, diff.to);
  const hunks = problems.filter((problem) => problem.startsWith("hunk "));
  const whole = problems.filter((problem) => !problem.startsWith("hunk "));
  if (diff.hunks !== undefined && hunkCount(shown) !== diff.hunks) {
    hunks.push(`${hunkCount(shown)} hunks; the chapter says ${diff.hunks}`);
  }
  const changed = shown.split("\n").filter((line) => /^[-+]/.test(line)).length;
  if (diff.changedLines !== undefined && changed !== diff.changedLines) {
    whole.push(`${changed} changed lines; the chapter says ${diff.changedLines}`);
  }
  return { hunks, whole };
}

/**
 * Where a text does not show the CLI's `--help` as the CLI prints it. Every ```text block that
 * shows help lines (`usage: pnpm …`, `  --name …`) is the whole help, or the help lines of the
 * options the chapter adds (`ownHelpLines`; the rest are on the options page); and the text shows
 * one of the two when the chapter adds options, or is the first chapter (no `previous`).
 */
export function helpProblems(markdown: string, cli: NonNullable<ChapterTextFacts["cli"]>): string[] {
  const { command, summary, flags, exitCodes, commandHelp, environment } = cli.chapter;
  // the flags go back to the printer they came with (the chapter's own list, unchanged)
  const whole = `${cli.usage(command, summary, [...(flags ?? [])] as never[], exitCodes, commandHelp, environment)}\n`;
  const first = cli.previous === undefined; // the first chapter shows the contract whole
  const own = first ? "" : ownHelpLines(cli.chapter, cli.previous);
  const allowed = own === "" ? [whole] : [whole, `${own}\n`];
  const helpBlocks = codeFences(markdown, "text").filter((block) =>
    /^(?:usage: pnpm | {2}--[a-z]| {2}-h, --help)/m.test(block),
  );
  const problems = helpBlocks
    .filter((block) => !allowed.includes(block))
    .map(
      (block) =>
        `a text block shows help lines that are not the CLI's --help, nor the lines of the options it adds:\n${block}`,
    );
  const wanted = own !== "" || first;
  if (wanted && !helpBlocks.some((block) => allowed.includes(block))) {
    problems.push(
      `no text block is the --help text${own === "" ? "" : `, or the help lines of the options it adds:\n${own}`}`,
    );
  }
  return problems;
}

/** Where a text's exit status table is not the CLI's: other reasons or order than `table`, or a status the CLI does not give. */
export function exitTableProblems(
  markdown: string,
  cli: NonNullable<ChapterTextFacts["cli"]>,
  table: readonly string[],
): string[] {
  const rows = exitRows(markdown);
  const reasons = rows.map((row) => row.reason);
  const problems =
    reasons.join() === table.join()
      ? []
      : [`the table's reasons are ${reasons.join(", ") || "(none)"}; ${table.join(", ")} expected`];
  for (const row of rows) {
    const code = cli.exitCodeFor(row.reason, cli.chapter.exitCodes);
    if (code !== row.code) problems.push(`${row.row}: the CLI exits ${code} for ${row.reason}`);
  }
  return problems;
}

/** Where the two texts do not show the same code in the same order and places, or fold as many blocks. */
export function sameCodeProblems(english: string, chinese: string): string[] {
  const folded = (text: string) => text.match(/^[ \t]*<details>/gm)?.length ?? 0;
  const counts =
    folded(english) === folded(chinese)
      ? []
      : [`README.md has ${folded(english)} <details> blocks, README.zh.md ${folded(chinese)}`];
  return [...counts, ...codeDifferences(english, chinese)];
}

/** Register the suite's tests for one chapter (call it at the top level of test/readme.test.ts). */
export function chapterTextSuite(facts: ChapterTextFacts): void {
  const dir = facts.chapter;
  const folder = basename(dir);
  const read = (file: ChapterTextFile) => readFileSync(join(dir, file), "utf8");
  const sources = sourceLines(facts.sources ?? [join(dir, "src")]);
  const cli = facts.cli;

  describe.each(CHAPTER_TEXTS)("%s (the chapter-text suite)", (file) => {
    const text = read(file);

    it("quotes every ts excerpt verbatim from the sources", () => {
      expect(excerptProblems(text, sources, facts.excerpts)).toEqual([]);
    });

    if (facts.wholeLoop) {
      const { file: loopFile = join(dir, "src", "agent-loop.ts"), docComment = true } = facts.wholeLoop;
      it("shows the whole loop: one ts block that is agentLoop as the source has it", () => {
        expect(wholeLoopProblems(text, loopFile, docComment)).toEqual([]);
      });
    }

    for (const diff of facts.diffs ?? []) {
      it(`shows the diff of ${diff.label} with real hunks: each a piece of both files`, () => {
        expect(diffProblems(text, diff).hunks).toEqual([]);
      });
      it(`shows the diff of ${diff.label} whole: no change left out but the files' header comments`, () => {
        expect(diffProblems(text, diff).whole).toEqual([]);
      });
    }

    if (cli && cli.help !== false) {
      it("shows the CLI's --help as it prints it: the whole text, or the lines of the options this chapter adds", () => {
        expect(helpProblems(text, cli)).toEqual([]);
      });
    }

    if (cli?.exitTable) {
      const table = cli.exitTable;
      it("lists each exit status as the CLI maps it", () => {
        expect(exitTableProblems(text, cli, table)).toEqual([]);
      });
    }
  });

  describe("the chapter text (the chapter-text suite)", () => {
    it("gives the same code in English and Chinese, in the same order and places, and as many folded blocks", () => {
      expect(sameCodeProblems(read("README.md"), read("README.zh.md"))).toEqual([]);
    });

    if (!textsNotYetRewritten(dirname(dir)).includes(folder)) {
      it("has a main path of at most 12,000 characters, the Chinese in step", () => {
        expect(mainPathProblems(read("README.md"), read("README.zh.md"))).toEqual([]);
      });

      it("states its reading time as its main path and its code measure it", () => {
        const figures = readingFigures(read("README.md"), dir);
        for (const file of CHAPTER_TEXTS) expect(readingTimeProblems(read(file), file, figures), file).toEqual([]);
      });
    }
  });
}
