/**
 * The chapter-text suite on a made-up chapter (s02 of a made-up course, its texts the rules written
 * out): the suite itself, registered here as a chapter registers it, finds nothing wrong; then each
 * of its checks on a change that breaks it.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readingFigures, readingLine } from "../src/chapter-measures.ts";
import { sourceLines } from "../src/chapter-text.ts";
import {
  type ChapterCliFacts,
  type ChapterTextFacts,
  chapterTextSuite,
  diffProblems,
  excerptProblems,
  exitRows,
  exitTableProblems,
  helpProblems,
  ownHelpLines,
  sameCodeProblems,
  textsNotYetRewritten,
  wholeLoopProblems,
} from "../src/chapter-text-suite.ts";

const ROOT = mkdtempSync(join(tmpdir(), "chapter-text-suite-"));
afterAll(() => rmSync(ROOT, { recursive: true, force: true }));
const S01 = join(ROOT, "s01-first");
const S02 = join(ROOT, "s02-made-up");
const write = (path: string, text: string) => {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
};

const S01_LOOP = [
  "/** s01: the loop. */",
  "/** Run the loop. */",
  "export async function agentLoop() {",
  "  for (;;) {",
  "    const turn = await call();",
  "    if (turn.done) return turn;",
  "  }",
  "}",
  "",
].join("\n");
const S02_LOOP = S01_LOOP.replace("s01: the loop.", "s02: s01's loop, plus send.").replace("call()", "send()");
write(join(S01, "src", "agent-loop.ts"), S01_LOOP);
write(join(S02, "src", "agent-loop.ts"), S02_LOOP);
write(join(S02, "src", "tools.ts"), "export const tools = new Map();\nexport const none = [];\n");
write(
  join(ROOT, "docs", "src", "texts-not-yet-rewritten.ts"),
  'export const TEXTS_NOT_YET_REWRITTEN: readonly string[] = [\n  "s01-first",\n];\n',
);

/** The CLI as a chapter exports it, and a help printer and exit mapping like the runner's. */
const CHAPTER: ChapterCliFacts = {
  command: "s02",
  summary: "made up",
  flags: [{ name: "trace", help: "--trace[=ID]  record every iteration" }],
  exitCodes: { aborted: 130 },
};
const PREVIOUS: ChapterCliFacts = { command: "s01", summary: "first" };
const CLI: NonNullable<ChapterTextFacts["cli"]> = {
  chapter: CHAPTER,
  previous: PREVIOUS,
  usage: (command: string, summary: string, flags: { help: string }[]) =>
    [`${command}: ${summary}`, "", "  --json  one JSON line", ...flags.map((flag) => `  ${flag.help}`)].join("\n"),
  exitCodeFor: (reason, codes = {}) =>
    codes[reason] ?? ({ final_answer: 0, max_turns: 2, error: 1 } as Record<string, number>)[reason] ?? 1,
  exitTable: ["final_answer", "max_turns", "error", "aborted"],
};

function english(reading: string): string {
  return [
    "# s02: Made up",
    "",
    reading,
    "",
    "## How it works",
    "",
    "```ts\nexport const tools = new Map();\n```",
    "",
    "<details>",
    "<summary>Why a map</summary>",
    "",
    "Because.",
    "",
    "</details>",
    "",
    "## The whole loop",
    "",
    "```ts",
    ...S02_LOOP.split("\n").slice(1, -1),
    "```",
    "",
    "## What changed",
    "",
    "```diff\n@@ the send\n-    const turn = await call();\n+    const turn = await send();\n```",
    "",
    "## Try it",
    "",
    "```text\n  --trace[=ID]  record every iteration\n```",
    "",
    "| Status | Stop reason |",
    "| --- | --- |",
    "| 0 | `final_answer` |",
    "| 2 | `max_turns` |",
    "| 1 | an error |",
    "| 130 | `aborted` (Ctrl-C) |",
    "",
  ].join("\n");
}

const chinese = (reading: string) =>
  english(reading)
    .replace("# s02: Made up", "# s02：虚构")
    .replace("## How it works", "## 工作原理")
    .replace("<summary>Why a map</summary>", "<summary>为什么用映射</summary>")
    .replace("Because.", "因为。")
    .replace("## The whole loop", "## 完整的循环")
    .replace("## What changed", "## 相比上一章的变化")
    .replace("## Try it", "## 动手试试")
    .replace("| 1 | an error |", "| 1 | 出错 |");

let figures = readingFigures(english("**Reading:** about 1 minutes · **Code:** src/ 1 lines"), S02);
figures = readingFigures(english(readingLine("README.md", figures)), S02);
const EN = english(readingLine("README.md", figures));
const ZH = chinese(readingLine("README.zh.md", figures));
write(join(S02, "README.md"), EN);
write(join(S02, "README.zh.md"), ZH);

const FACTS: ChapterTextFacts = {
  chapter: S02,
  excerpts: 2,
  wholeLoop: {},
  diffs: [
    {
      label: "s01's loop against this one",
      hunks: 1,
      from: join(S01, "src", "agent-loop.ts"),
      to: join(S02, "src", "agent-loop.ts"),
    },
  ],
  cli: CLI,
};

// the suite as a chapter runs it: every test it registers passes on the made-up chapter
chapterTextSuite(FACTS);

describe("the suite's checks, each on a change that breaks it", () => {
  const sources = sourceLines([join(S02, "src")]);

  it("excerpts: one not in the sources, or too few", () => {
    expect(excerptProblems(EN, sources, 2)).toEqual([]);
    expect(excerptProblems(EN.replace("new Map()", "new Set()"), sources, 2)).toEqual([
      "not found in the sources:\nexport const tools = new Set();\n",
    ]);
    expect(excerptProblems(EN, sources, 3)).toEqual(["2 ts excerpts; at least 3"]);
  });

  it("the whole loop: a line changed, the doc comment left out, or the block twice", () => {
    const loop = join(S02, "src", "agent-loop.ts");
    expect(wholeLoopProblems(EN, loop)).toEqual([]);
    expect(wholeLoopProblems(EN.replace("if (turn.done) return turn;", "return turn;"), loop)).toEqual([
      `the whole loop is not agentLoop as ${loop} has it`,
    ]);
    expect(wholeLoopProblems(EN.replace("/** Run the loop. */\n", ""), loop)).toHaveLength(1);
    expect(wholeLoopProblems(EN.replace("/** Run the loop. */\n", ""), loop, false)).toEqual([]);
    expect(wholeLoopProblems(`${EN}\n\`\`\`ts\n${S02_LOOP}\`\`\`\n`, loop)).toEqual([
      "2 ts blocks hold export async function agentLoop(; one does",
    ]);
  });

  it("diffs: a hunk not in the files, a change left out, the hunks or lines miscounted", () => {
    const [diff] = FACTS.diffs ?? [];
    expect(diffProblems(EN, diff)).toEqual({ hunks: [], whole: [] });
    const madeUp = diffProblems(EN.replace("+    const turn = await send();", "+    const turn = await post();"), diff);
    expect(madeUp.hunks).toEqual([expect.stringMatching(/^hunk 1 is not in .*s02-made-up\/src\/agent-loop\.ts:/)]);
    expect(madeUp.whole).toEqual(["left out: +    const turn = await send();"]);
    expect(diffProblems(EN, { ...diff, hunks: 2, changedLines: 3 })).toEqual({
      hunks: ["1 hunks; the chapter says 2"],
      whole: ["2 changed lines; the chapter says 3"],
    });
    expect(diffProblems(EN, { ...diff, block: 1 }).hunks).toEqual(["no diff block 1"]);
  });

  it("help: the whole --help or the lines of the options the chapter adds, and nothing else", () => {
    expect(ownHelpLines(CHAPTER, PREVIOUS)).toBe("  --trace[=ID]  record every iteration");
    expect(ownHelpLines(CHAPTER, CHAPTER)).toBe("");
    expect(helpProblems(EN, CLI)).toEqual([]);
    const whole = CLI.usage("s02", "made up", [...(CHAPTER.flags ?? [])] as never[]);
    const withWhole = EN.replace(
      "```text\n  --trace[=ID]  record every iteration\n```",
      `\`\`\`text\n${whole}\n\`\`\``,
    );
    expect(helpProblems(withWhole, CLI)).toEqual([]);
    expect(helpProblems(EN.replace("record every iteration", "record"), CLI)).toEqual([
      "a text block shows help lines that are not the CLI's --help, nor the lines of the options it adds:\n  --trace[=ID]  record\n",
      "no text block is the --help text, or the help lines of the options it adds:\n  --trace[=ID]  record every iteration",
    ]);
    // a chapter that adds no option may show no help at all, but not a part of the contract's
    const addsNone = { ...CLI, previous: CHAPTER };
    expect(helpProblems(EN.replace("  --trace[=ID]  record every iteration\n", "no help here\n"), addsNone)).toEqual(
      [],
    );
    expect(helpProblems(EN, addsNone)).toEqual([
      "a text block shows help lines that are not the CLI's --help, nor the lines of the options it adds:\n  --trace[=ID]  record every iteration\n",
    ]);
    // the first chapter shows the whole help
    expect(helpProblems(withWhole, { ...CLI, previous: undefined })).toEqual([]);
    expect(helpProblems(EN, { ...CLI, previous: undefined })).toHaveLength(2);
  });

  it("the exit table: its reasons in order, each with the status the CLI gives", () => {
    expect(exitRows(EN).map((row) => `${row.code} ${row.reason}`)).toEqual([
      "0 final_answer",
      "2 max_turns",
      "1 error",
      "130 aborted",
    ]);
    expect(exitTableProblems(EN, CLI, CLI.exitTable ?? [])).toEqual([]);
    expect(
      exitTableProblems(EN.replace("| 2 | `max_turns` |", "| 3 | `max_turns` |"), CLI, CLI.exitTable ?? []),
    ).toEqual(["| 3 | `max_turns` |: the CLI exits 2 for max_turns"]);
    expect(exitTableProblems(EN, CLI, ["final_answer", "error"])).toEqual([
      "the table's reasons are final_answer, max_turns, error, aborted; final_answer, error expected",
    ]);
  });

  it("the same code in both texts, as many folded blocks", () => {
    expect(sameCodeProblems(EN, ZH)).toEqual([]);
    expect(sameCodeProblems(EN, ZH.replace("new Map()", "new Set()"))).toEqual([
      'code block 1: line 1 differs: README.md "export const tools = new Map();", README.zh.md "export const tools = new Set();"',
    ]);
    expect(sameCodeProblems(EN, ZH.replace("<details>", "<div>").replace("</details>", "</div>"))).toEqual([
      "README.md has 1 <details> blocks, README.zh.md 0",
    ]);
  });

  it("reads the chapters not yet rewritten from docs/src/texts-not-yet-rewritten.ts", () => {
    expect(textsNotYetRewritten(ROOT)).toEqual(["s01-first"]);
  });
});
