/**
 * The measures of issue 24 (chapter-shape.ts's CHAPTER_CHECKS): first every chapter of this
 * course, one test per chapter and check, except the chapters texts-not-yet-rewritten.ts lists,
 * each of which must still fail at least one check (so the list cannot rot); then a made-up
 * chapter that meets every check, and each rule shown firing on a change to it.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readingFigures, readingLine } from "@harness/testkit";
import { afterAll, describe, expect, it } from "vitest";
import {
  breadcrumbs,
  CHAPTER_CHECKS,
  type ChapterText,
  type ChapterTexts,
  chapterCheckProblems,
  glossaryProblems,
  headingsAndHeaders,
  nextLink,
  readChapterTexts,
} from "../src/chapter-shape.ts";
import type { Exercise } from "../src/exercises.ts";
import { type Chapter, findChapters } from "../src/find-chapters.ts";
import { TEXTS_NOT_YET_REWRITTEN } from "../src/texts-not-yet-rewritten.ts";

const chapters = findChapters();

describe("the chapter texts of this course, against the measures of issue 24", () => {
  const rewritten = chapters.filter((chapter) => !TEXTS_NOT_YET_REWRITTEN.includes(chapter.folder));
  const listed = chapters.filter((chapter) => TEXTS_NOT_YET_REWRITTEN.includes(chapter.folder));

  it("lists only chapters the course has, each once", () => {
    const folders = chapters.map((chapter) => chapter.folder);
    expect(TEXTS_NOT_YET_REWRITTEN.filter((folder) => !folders.includes(folder))).toEqual([]);
    expect(new Set(TEXTS_NOT_YET_REWRITTEN).size).toBe(TEXTS_NOT_YET_REWRITTEN.length);
  });

  describe.each(rewritten.map((chapter) => chapter.folder))("%s", (folder) => {
    const chapter = chapters.find((c) => c.folder === folder)!;
    it.each(CHAPTER_CHECKS.map((check) => check.name))("meets the check: %s", async (name) => {
      const check = CHAPTER_CHECKS.find((c) => c.name === name)!;
      expect(check.problems(await readChapterTexts(chapter, chapters))).toEqual([]);
    });
  });

  it.each(listed.map((chapter) => chapter.folder))(
    "%s is not rewritten yet, and still fails a check (else it leaves TEXTS_NOT_YET_REWRITTEN)",
    async (folder) => {
      const chapter = chapters.find((c) => c.folder === folder)!;
      const problems = chapterCheckProblems(await readChapterTexts(chapter, chapters));
      expect(Object.values(problems).flat().length).toBeGreaterThan(0);
    },
  );
});

// ---------------------------------------------------------------------------------------------
// A made-up chapter, s02 of three, that meets every check: its texts are the rules, written out.

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function madeUpChapters(): Chapter[] {
  const root = mkdtempSync(join(tmpdir(), "chapter-checks-"));
  dirs.push(root);
  const chapter = (number: number, name: string): Chapter => ({
    folder: `s0${number}-${name}`,
    number,
    path: join(root, `s0${number}-${name}`),
    packageName: `@harness/s0${number}-${name}`,
    harnessDependencies: [],
  });
  const made = [chapter(1, "first"), chapter(2, "made-up"), chapter(3, "next")];
  mkdirSync(join(made[1].path, "src", "tools"), { recursive: true });
  writeFileSync(join(made[1].path, "src", "agent-loop.ts"), "line\n".repeat(1200));
  writeFileSync(join(made[1].path, "src", "main.ts"), "line\n".repeat(34));
  writeFileSync(join(made[1].path, "src", "tools", "glob.ts"), "line\n".repeat(1500));
  return made;
}

const LOOP = ["export async function agentLoop() {", "  for (;;) {", "    const turn = await send();", "  }", "}"];

/** The English text of a made-up chapter, with the reading line each test gives it (an empty string for none). */
function english(reading: string): string {
  return [
    "# s02: Made up",
    "",
    "[s01](../s01-first/README.md) > **s02**",
    "",
    reading,
    "",
    "[中文](README.zh.md) · [Glossary](../docs/glossary.md) · [Troubleshooting](../docs/troubleshooting.md)",
    "",
    "## The problem",
    "",
    "It forgets.",
    "",
    "## The idea",
    "",
    "```mermaid\nflowchart LR\n  a --> b\n```",
    "",
    "## How it works",
    "",
    "### The dispatch map",
    "",
    "```ts\nconst tools = new Map();\n```",
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
    ...LOOP,
    "```",
    "",
    "## What changed",
    "",
    "```diff\n@@ the send\n-    const turn = await call();\n+    const turn = await send();\n```",
    "",
    "## Common mistakes",
    "",
    "1. Forgetting.",
    "",
    "## What it leaves out",
    "",
    "- Much.",
    "",
    "## Try it",
    "",
    "```sh\npnpm s02 --cwd /tmp/s02-sample\n```",
    "",
    "```text\n[turn 1]\n```",
    "",
    "The options every chapter has are on [the options page](../docs/options.md); this one adds:",
    "",
    "```text\n  --trace[=ID]        record every iteration\n```",
    "",
    "### What to watch for",
    "",
    "- The first turn.",
    "",
    "## Exercises",
    "",
    "1. **Build the map.** Make `toolMap` return an empty map, then write it.",
    "",
    "   <details>",
    "   <summary>One answer</summary>",
    "",
    "   A map from each tool's name to the tool.",
    "",
    "   </details>",
    "",
    "2. Predict first: what fails when the map is empty?",
    "",
    "### Questions you should be able to answer",
    "",
    "- Why a map?",
    "- Why one schema?",
    "- Why confine paths?",
    "",
    "<details>",
    "<summary>Answers</summary>",
    "",
    "- Lookup by name.",
    "- One source of truth.",
    "- Safety.",
    "",
    "</details>",
    "",
    "## What comes next",
    "",
    "Next, [streaming](../s03-next/README.md).",
    "",
  ].join("\n");
}

/** The Chinese text: the same shape and code, its words translated. */
function chinese(reading: string): string {
  const swaps: [string, string][] = [
    ["# s02: Made up", "# s02：虚构"],
    ["(../s01-first/README.md)", "(../s01-first/README.zh.md)"],
    [
      "[中文](README.zh.md) · [Glossary](../docs/glossary.md) · [Troubleshooting](../docs/troubleshooting.md)",
      "[English](README.md) · [术语表](../docs/glossary.zh.md) · [故障排查](../docs/troubleshooting.zh.md)",
    ],
    ["## The problem", "## 问题"],
    ["## The idea", "## 核心思想"],
    ["## How it works", "## 工作原理"],
    ["### The dispatch map", "### 分发表"],
    ["## The whole loop", "## 完整的循环"],
    ["## What changed", "## 相比上一章的变化"],
    ["## Common mistakes", "## 常见误区"],
    ["## What it leaves out", "## 本章不做什么"],
    ["## Try it", "## 动手试试"],
    ["### What to watch for", "### 留意什么"],
    ["## Exercises", "## 练习"],
    ["2. Predict first:", "2. 先预测："],
    ["### Questions you should be able to answer", "### 你应该能回答的问题"],
    ["<summary>Answers</summary>", "<summary>答案</summary>"],
    ["## What comes next", "## 下一章"],
    ["(../s03-next/README.md)", "(../s03-next/README.zh.md)"],
    ["(../docs/options.md)", "(../docs/options.zh.md)"],
  ];
  return swaps.reduce((text, [en, zh]) => text.replace(en, zh), english(reading));
}

const GLOSSARY = {
  "README.md": "# Glossary\n\n**Dispatch map.** A map from a tool's name to the tool: `toolMap`.\n",
  "README.zh.md": "# 术语表\n\n**分发表（dispatch map）。** 从工具名到工具的映射：`toolMap`。\n",
};

/** The options page: the made-up s02 adds --trace; --max-turns is every chapter's, --cwd s01's. */
const OPTIONS = [
  "| Option | From | What it does |",
  "| --- | --- | --- |",
  "| `--max-turns N` | every chapter | the turn budget |",
  "| `--trace[=ID]` | [s02](../s02-made-up/README.md) | record every iteration |",
].join("\n");

const EXERCISES: Exercise[] = [
  { id: 1, kind: "build", file: "src/main.ts", find: "a", replace: "b", test: "maps", expect: "fail" },
  { id: 2, file: "src/main.ts", find: "c", replace: "d", test: "maps", expect: "fail" },
];

/** The made-up chapter's texts, with its reading lines right, then changed by `change`. */
function madeUp(change: (texts: Record<ChapterText, string>) => Partial<Record<ChapterText, string>> = () => ({})) {
  const made = madeUpChapters();
  let figures = readingFigures(
    english("**Reading:** about 1 minutes · **Code:** src/ 1,234 lines (libraries one folder down: 1,500)"),
    made[1].path,
  );
  figures = readingFigures(english(readingLine("README.md", figures)), made[1].path);
  const texts = {
    "README.md": english(readingLine("README.md", figures)),
    "README.zh.md": chinese(readingLine("README.zh.md", figures)),
  };
  const chapter: ChapterTexts = {
    chapter: made[1],
    chapters: made,
    texts: { ...texts, ...change(texts) },
    exercises: EXERCISES,
    glossary: GLOSSARY,
    options: OPTIONS,
  };
  return chapter;
}

/** The problems of every check that has any. */
const failing = (chapter: ChapterTexts) =>
  Object.fromEntries(Object.entries(chapterCheckProblems(chapter)).filter(([, problems]) => problems.length > 0));

describe("CHAPTER_CHECKS on a made-up chapter", () => {
  it("finds nothing wrong with a chapter that keeps every rule", () => {
    expect(failing(madeUp())).toEqual({});
  });

  it("main path: counts the text outside <details>, code included, at most 12,000 characters", () => {
    const long = (text: string) => text.replace("It forgets.", "It forgets. ".repeat(1000));
    const folded = (text: string) => text.replace("Because.", "Because. ".repeat(2000));
    expect(
      failing(madeUp((t) => ({ "README.md": folded(t["README.md"]), "README.zh.md": folded(t["README.zh.md"]) }))),
    ).toEqual({});
    const problems = failing(madeUp((t) => ({ "README.md": long(t["README.md"]) })));
    expect(problems["main path"]).toEqual([
      expect.stringMatching(/^README\.md's main path has 1\d,\d{3} characters; at most 12,000$/),
    ]);
  });

  it("main path: counts a Chinese character as 2.5, and wants the two texts in step", () => {
    const chinese = (t: Record<ChapterText, string>) => ({
      "README.zh.md": t["README.zh.md"].replace("## 问题\n", `## 问题\n\n${"忘".repeat(4700)}\n`),
    });
    expect(failing(madeUp(chinese))["main path"]).toEqual([
      expect.stringMatching(/^README\.zh\.md's main path measures 1\d,\d{3} characters/),
    ]);
    const unfolded = (t: Record<ChapterText, string>) => ({
      "README.zh.md": t["README.zh.md"]
        .replace("<details>\n<summary>Why a map</summary>", "")
        .replace("Because.\n\n</details>", "Because."),
    });
    expect(failing(madeUp(unfolded))["main path"]).toContain("README.md has 3 folded blocks, README.zh.md 2");
    const moved = (t: Record<ChapterText, string>) => ({
      "README.zh.md": t["README.zh.md"].replace(
        "```ts\nconst tools = new Map();\n```\n\n<details>\n<summary>Why a map</summary>\n",
        "<details>\n<summary>Why a map</summary>\n\n```ts\nconst tools = new Map();\n```\n",
      ),
    });
    expect(failing(madeUp(moved))["main path"]).toContain(
      "code block 1 is in the main path of README.md, folded block 1 of README.zh.md",
    );
    const other = (t: Record<ChapterText, string>) => ({
      "README.zh.md": t["README.zh.md"].replace("const tools = new Map();", "const tools = {};"),
    });
    expect(failing(madeUp(other))["main path"]).toEqual([
      'code block 1: line 1 differs: README.md "const tools = new Map();", README.zh.md "const tools = {};"',
    ]);
    const heading = (t: Record<ChapterText, string>) => ({
      "README.zh.md": t["README.zh.md"].replace("### 分发表\n", ""),
    });
    expect(failing(madeUp(heading))["main path"]).toEqual(["## How it works has 1 ### headings, ## 工作原理 0"]);
  });

  it("reading time: the line the main path and the code make, in each language", () => {
    const stale = (t: Record<ChapterText, string>) => ({
      "README.md": t["README.md"].replace("src/ 1,234 lines", "src/ 1,000 lines"),
    });
    expect(failing(madeUp(stale))["reading time"]).toEqual([
      "README.md: the top matter says **Reading:** about 2 minutes · **Code:** src/ 1,000 lines (libraries one folder down: 1,500); the main path and the code make it: **Reading:** about 2 minutes · **Code:** src/ 1,234 lines (libraries one folder down: 1,500)",
    ]);
    const none = (t: Record<ChapterText, string>) => ({
      "README.zh.md": t["README.zh.md"].replace(/^\*\*阅读：\*\*.*$/m, ""),
    });
    expect(failing(madeUp(none))["reading time"]).toEqual([
      "README.zh.md: the top matter has no reading-time line; it should say: **阅读：** 约 2 分钟 · **代码：** src/ 1,234 行（下一层的库：1,500 行）",
    ]);
  });

  it("each code block once: How it works may not repeat The whole loop or What changed", () => {
    const repeat = (text: string) => text.replace("const tools = new Map();", "for (;;) {\nconst turn = await send();");
    const problems = failing(
      madeUp((t) => ({ "README.md": repeat(t["README.md"]), "README.zh.md": repeat(t["README.zh.md"]) })),
    );
    expect(problems["each code block once"]).toEqual([
      'README.md: ## How it works repeats code ## The whole loop shows: "for (;;) {"…',
      'README.zh.md: ## 工作原理 repeats code ## 完整的循环 shows: "for (;;) {"…',
    ]);
    const diffed = (text: string) => text.replace("const tools = new Map();", "const turn = await send();");
    expect(failing(madeUp((t) => ({ "README.md": diffed(t["README.md"]) })))["each code block once"]).toEqual([
      'README.md: ## How it works repeats code ## The whole loop shows: "const turn = await send();"…',
    ]);
  });

  it("what to watch for: Try it's last ### on the main path, with no sample after it", () => {
    const missing = (t: Record<ChapterText, string>) => ({
      "README.md": t["README.md"].replace("### What to watch for\n", ""),
    });
    expect(failing(madeUp(missing))["what to watch for"]).toEqual([
      "README.md: ## Try it does not end with ### What to watch for (its last ### on the main path)",
    ]);
    const after = (t: Record<ChapterText, string>) => ({
      "README.md": t["README.md"].replace("- The first turn.\n", "- The first turn.\n\n```sh\npnpm s02\n```\n"),
    });
    expect(failing(madeUp(after))["what to watch for"]).toEqual([
      "README.md: a code block follows ### What to watch for on the main path: the samples come before it",
    ]);
    const folded = (t: Record<ChapterText, string>) => ({
      "README.md": t["README.md"].replace(
        "- The first turn.\n",
        "- The first turn.\n\n<details>\n<summary>More</summary>\n\n```sh\npnpm s02\n```\n\n</details>\n",
      ),
    });
    expect(failing(madeUp(folded))["what to watch for"]).toBeUndefined();
  });

  it("breadcrumbs: every earlier chapter a link, in the text's language, this one in bold", () => {
    const made = madeUpChapters();
    expect(breadcrumbs(made, made[0], "README.md")).toBe("**s01**");
    expect(breadcrumbs(made, made[2], "README.zh.md")).toBe(
      "[s01](../s01-first/README.zh.md) > [s02](../s02-made-up/README.zh.md) > **s03**",
    );
    const plain = (t: Record<ChapterText, string>) => ({
      "README.md": t["README.md"].replace("[s01](../s01-first/README.md) > **s02**", "`s01 > [ s02 ] s03`"),
    });
    expect(failing(madeUp(plain)).breadcrumbs).toEqual([
      "README.md: the top matter has no breadcrumb line of links: [s01](../s01-first/README.md) > **s02**",
    ]);
  });

  it("next chapter: What comes next links the next chapter, or the course home after the last", () => {
    const made = madeUpChapters();
    expect(nextLink(made, made[2], "README.zh.md")).toBe("../docs/index.zh.md");
    const unlinked = (t: Record<ChapterText, string>) => ({
      "README.zh.md": t["README.zh.md"].replace("(../s03-next/README.zh.md)", "(../s03-next/README.md)"),
    });
    expect(failing(madeUp(unlinked))["next chapter"]).toEqual([
      "README.zh.md: ## 下一章 does not link ../s03-next/README.zh.md",
    ]);
  });

  it("questions: 3 to 5 of them closing Exercises, their answers folded, as many", () => {
    const two = (t: Record<ChapterText, string>) => ({
      "README.md": t["README.md"].replace("- Why confine paths?\n", ""),
    });
    expect(failing(madeUp(two)).questions).toEqual([
      "README.md: ### Questions you should be able to answer asks 2 questions (- items); 3 to 5",
      "README.md: ### Questions you should be able to answer asks 2 questions and folds 3 answers",
    ]);
    const open = (t: Record<ChapterText, string>) => ({
      "README.md": t["README.md"].replace("<summary>Answers</summary>", "<summary>The answers</summary>"),
    });
    expect(failing(madeUp(open)).questions).toEqual([
      "README.md: ### Questions you should be able to answer folds its answers in one <details> block with <summary>Answers</summary>",
    ]);
    const none = (t: Record<ChapterText, string>) => ({
      "README.zh.md": t["README.zh.md"].replace("### 你应该能回答的问题", "### 问题"),
    });
    expect(failing(madeUp(none)).questions).toEqual(["README.zh.md: ## 练习 has no ### 你应该能回答的问题"]);
  });

  it("glossary: the course terms and code spans of headings and table headers are defined", () => {
    const made = madeUp((t) => ({
      "README.md": t["README.md"].replace(
        "### The dispatch map",
        "### Hooks and `runCall`\n\n| hook | exit code |\n| --- | --- |\n| a | 2 |",
      ),
    }));
    expect(failing(made).glossary).toEqual([
      'README.md: the glossary does not define: "hook" (in "Hooks and `runCall`", "hook"); `runCall` (in "Hooks and `runCall`"); "exit code" (in "exit code")',
    ]);
    expect(
      glossaryProblems("## 动手试试\n\n看退出状态。`退出状态` 是代码。\n", "README.zh.md", GLOSSARY["README.zh.md"]),
    ).toEqual(["uses 退出状态 for exit code; the course's word is 退出码"]);
  });

  it("glossary: reads headings and the header row of each table, not code or table bodies", () => {
    const text =
      "## A\n\n### The `x` seam\n\n```md\n## Not this\n| no | header |\n|---|---|\n```\n\n| one | two |\n| :-- | --: |\n| body | cell |\n";
    expect(headingsAndHeaders(text)).toEqual(["A", "The `x` seam", "one", "two"]);
  });

  it("exercises: exactly one build exercise, its answer folded; every other one predicts first", () => {
    const two = madeUp();
    two.exercises = EXERCISES.map((exercise) => ({ ...exercise, kind: "build" }));
    expect(failing(two).exercises).toEqual([
      "test/exercises.ts has 2 build exercises (1, 2); a chapter has exactly one",
      "README.md: exercise 2 (build) does not fold its answer in a <details> block",
      "README.zh.md: exercise 2 (build) does not fold its answer in a <details> block",
    ]);
    const told = (t: Record<ChapterText, string>) => ({
      "README.md": t["README.md"].replace(
        "2. Predict first: what fails",
        "2. Make the map empty. Predict first: what fails",
      ),
    });
    expect(failing(madeUp(told)).exercises).toEqual(['README.md: exercise 2 does not start with "Predict first"']);
    const titled = (t: Record<ChapterText, string>) => ({
      "README.md": t["README.md"].replace(
        "2. Predict first: what fails",
        "2. **Empty.** **Predict first:** what fails",
      ),
    });
    expect(failing(madeUp(titled)).exercises).toBeUndefined();
  });

  it("options: links the options page, and lists only the options the chapter adds", () => {
    const noLink = (text: string) => text.replace(/\[the options page\]\([^)]*\)/, "the options page");
    expect(failing(madeUp((t) => ({ "README.zh.md": noLink(t["README.zh.md"]) })))).toEqual({
      options: ["README.zh.md: does not link the options page (../docs/options.zh.md)"],
    });
    const whole = (text: string) =>
      text.replace("  --trace[=ID]", "  --max-turns N       turn budget\n  -h, --help  help\n  --trace[=ID]");
    const table = (text: string) =>
      text.replace("- Much.", "- Much.\n\n| Option | What |\n| --- | --- |\n| `--cwd DIR` | where |");
    const both = (t: Record<ChapterText, string>) => ({
      "README.md": table(whole(t["README.md"])),
      "README.zh.md": whole(t["README.zh.md"]),
    });
    expect(failing(madeUp(both))).toEqual({
      options: [
        "README.md: lists options another chapter adds (--cwd, --max-turns, --help): name only this chapter's own (--trace) and link ../docs/options.md for the rest",
        "README.zh.md: lists options another chapter adds (--max-turns, --help): name only this chapter's own (--trace) and link ../docs/options.zh.md for the rest",
      ],
    });
  });
});
