/**
 * The chapter shape, as a check: every chapter text, in both languages, has the same ten `##`
 * sections in the same order, links the glossary and the troubleshooting page before its first
 * section, draws its mechanism in a mermaid diagram, and ends its exercises section with two to
 * four numbered exercises. `###` subsections are free.
 *
 * Then the measures of issue 24, each a check of its own (`CHAPTER_CHECKS`): the main path, the
 * reading time, each code block once, what to watch for, breadcrumbs, the next chapter's link,
 * the questions, the glossary, the exercises' kinds and the options (only the chapter's own; the
 * rest on the options page). A chapter that texts-not-yet-rewritten.ts
 * lists is not held to them yet.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  containsRun,
  foldedBlocks,
  hunkSides,
  mainPath,
  mainPathProblems,
  normalisedLines,
  placedBlocks,
  readingFigures,
  readingTimeProblems,
  sectionText,
  topMatter,
} from "@harness/testkit";
import { COURSE_TERMS, type CourseTerm } from "./course-terms.ts";
import {
  EXERCISES_HEADINGS,
  type Exercise,
  exerciseKindProblems,
  readExercises,
  writtenExercises,
} from "./exercises.ts";
import { type Chapter, REPO_ROOT } from "./find-chapters.ts";
import { pageRows } from "./options-page.ts";

/** The two languages of a chapter text. */
export type ChapterText = "README.md" | "README.zh.md";

/**
 * The ten sections of every chapter, in order: the English heading and the Chinese one.
 *
 * The self-check questions are not a section: they close `## Exercises` as its last `###`,
 * `### Questions you should be able to answer` (`### 你应该能回答的问题`): three to five `- `
 * questions, then their answers folded in one `<details>` block whose summary is `Answers`
 * (`答案`), one `- ` answer per question (`QUESTIONS`). And `## Try it` ends with
 * `### What to watch for` (`### 留意什么`) on its main path (`WATCH_FOR`).
 */
export const CHAPTER_SECTIONS: readonly { "README.md": string; "README.zh.md": string }[] = [
  { "README.md": "## The problem", "README.zh.md": "## 问题" },
  { "README.md": "## The idea", "README.zh.md": "## 核心思想" },
  { "README.md": "## How it works", "README.zh.md": "## 工作原理" },
  { "README.md": "## The whole loop", "README.zh.md": "## 完整的循环" },
  { "README.md": "## What changed", "README.zh.md": "## 相比上一章的变化" },
  { "README.md": "## Common mistakes", "README.zh.md": "## 常见误区" },
  { "README.md": "## What it leaves out", "README.zh.md": "## 本章不做什么" },
  { "README.md": "## Try it", "README.zh.md": "## 动手试试" },
  { "README.md": EXERCISES_HEADINGS["README.md"], "README.zh.md": EXERCISES_HEADINGS["README.zh.md"] },
  { "README.md": "## What comes next", "README.zh.md": "## 下一章" },
];

/** The pages the top matter links, as each language links them. */
export const TOP_MATTER_LINKS: Record<ChapterText, readonly string[]> = {
  "README.md": ["../docs/glossary.md", "../docs/troubleshooting.md"],
  "README.zh.md": ["../docs/glossary.zh.md", "../docs/troubleshooting.zh.md"],
};

/** How many numbered exercises the exercises section holds. */
export const EXERCISE_COUNT = { min: 2, max: 4 } as const;

/** The `##` headings of a markdown text, in order, outside code blocks. */
export function sectionHeadings(markdown: string): string[] {
  const headings: string[] = [];
  let fence: string | undefined;
  for (const line of markdown.split("\n")) {
    const opener = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (opener && (fence === undefined || opener.startsWith(fence))) {
      fence = fence === undefined ? opener : undefined;
      continue;
    }
    if (fence === undefined && /^## /.test(line)) headings.push(line.trimEnd());
  }
  return headings;
}

/** Everything a chapter text does differently from the shape, one line each (none: it keeps it). */
export function chapterShapeProblems(markdown: string, file: ChapterText): string[] {
  const problems: string[] = [];
  const expected = CHAPTER_SECTIONS.map((section) => section[file]);
  const found = sectionHeadings(markdown);

  const missing = expected.filter((heading) => !found.includes(heading));
  if (missing.length > 0) problems.push(`missing sections: ${missing.join(" · ")}`);
  const extra = found.filter((heading) => !expected.includes(heading));
  if (extra.length > 0) {
    problems.push(`sections the shape does not have (make them ### inside one of its sections): ${extra.join(" · ")}`);
  }
  const twice = expected.filter((heading) => found.filter((h) => h === heading).length > 1);
  if (twice.length > 0) problems.push(`sections written twice: ${twice.join(" · ")}`);
  const known = found.filter((heading) => expected.includes(heading));
  const misplaced = outOfOrder(known.map((heading) => expected.indexOf(heading))).map((i) => known[i]);
  if (misplaced.length > 0) {
    problems.push(`sections out of order: ${misplaced.join(" · ")} (the order is: ${expected.join(" · ")})`);
  }

  const top = markdown.split(/^## /m)[0];
  for (const link of TOP_MATTER_LINKS[file]) {
    if (!top.includes(`](${link})`)) problems.push(`the top matter (before the first ##) does not link ${link}`);
  }

  if (!/^\s*(`{3,}|~{3,})mermaid\s*$/m.test(markdown)) problems.push("no ```mermaid diagram");

  const exercises = writtenExercises(markdown, EXERCISES_HEADINGS[file]);
  if (exercises !== undefined) {
    const numbers = exercises.map((exercise) => exercise.number);
    const counted = numbers.every((n, i) => n === i + 1);
    if (numbers.length < EXERCISE_COUNT.min || numbers.length > EXERCISE_COUNT.max || !counted) {
      problems.push(
        `${EXERCISES_HEADINGS[file]} holds ${numbers.length} numbered exercises (${numbers.join(", ") || "none"}); ` +
          `it must hold ${EXERCISE_COUNT.min} to ${EXERCISE_COUNT.max}, numbered 1, 2, ...`,
      );
    }
  }
  return problems;
}

/**
 * The positions of `order` that break its ascending order: those outside one longest ascending
 * run through it, so moving just them would put the rest in order.
 */
export function outOfOrder(order: readonly number[]): number[] {
  // longest strictly increasing subsequence, O(n²): a text has ten sections
  const length = order.map(() => 1);
  const previous = order.map(() => -1);
  for (let i = 0; i < order.length; i++) {
    for (let j = 0; j < i; j++) {
      if (order[j] < order[i] && length[j] + 1 > length[i]) {
        length[i] = length[j] + 1;
        previous[i] = j;
      }
    }
  }
  const kept = new Set<number>();
  let at = length.indexOf(Math.max(0, ...length));
  while (at !== -1) {
    kept.add(at);
    at = previous[at];
  }
  return order.map((_, i) => i).filter((i) => !kept.has(i));
}

// ---------------------------------------------------------------------------------------------
// The measures of issue 24, one check each.

/** The last `###` of `## Try it`'s main path: what the reader should notice in the samples. */
export const WATCH_FOR: Record<ChapterText, string> = {
  "README.md": "### What to watch for",
  "README.zh.md": "### 留意什么",
};

/** The last `###` of `## Exercises`: the self-check questions, their answers folded. */
export const QUESTIONS = {
  heading: { "README.md": "### Questions you should be able to answer", "README.zh.md": "### 你应该能回答的问题" },
  answers: { "README.md": "Answers", "README.zh.md": "答案" },
  min: 3,
  max: 5,
} as const;

/** Everything the checks read of a chapter: its texts, its manifest, the course's chapters and glossary. */
export interface ChapterTexts {
  chapter: Chapter;
  /** Every chapter of the course, in order (for the breadcrumbs and the next chapter). */
  chapters: readonly Chapter[];
  texts: Record<ChapterText, string>;
  /** The chapter's exercises (undefined without a manifest). */
  exercises: Exercise[] | undefined;
  /** docs/glossary.md and docs/glossary.zh.md. */
  glossary: Record<ChapterText, string>;
  /** docs/options.md: every option and the chapter that adds it (a test keeps it true to the CLIs). */
  options: string;
}

/** Read a chapter's texts, manifest and the glossary, for `CHAPTER_CHECKS`. */
export async function readChapterTexts(chapter: Chapter, chapters: readonly Chapter[]): Promise<ChapterTexts> {
  const read = (path: string) => readFileSync(path, "utf8");
  return {
    chapter,
    chapters,
    texts: {
      "README.md": read(join(chapter.path, "README.md")),
      "README.zh.md": read(join(chapter.path, "README.zh.md")),
    },
    exercises: (await readExercises(chapter))?.exercises,
    glossary: {
      "README.md": read(join(REPO_ROOT, "docs", "glossary.md")),
      "README.zh.md": read(join(REPO_ROOT, "docs", "glossary.zh.md")),
    },
    options: read(join(REPO_ROOT, "docs", "options.md")),
  };
}

/** One measure of issue 24: its name, and what a chapter does against it (nothing when it holds). */
export interface ChapterCheck {
  name: string;
  problems(chapter: ChapterTexts): string[];
}

const FILES: readonly ChapterText[] = ["README.md", "README.zh.md"];

/** Run `check` on both texts, each problem named with its file. */
function eachText(chapter: ChapterTexts, check: (markdown: string, file: ChapterText) => string[]): string[] {
  return FILES.flatMap((file) => check(chapter.texts[file], file).map((problem) => `${file}: ${problem}`));
}

/** The measures, in the order a text helper meets them. */
export const CHAPTER_CHECKS: readonly ChapterCheck[] = [
  {
    name: "main path",
    problems: ({ texts }) => mainPathProblems(texts["README.md"], texts["README.zh.md"]),
  },
  {
    name: "reading time",
    problems: (chapter) => {
      const figures = readingFigures(chapter.texts["README.md"], chapter.chapter.path);
      return eachText(chapter, (markdown, file) => readingTimeProblems(markdown, file, figures));
    },
  },
  { name: "each code block once", problems: (chapter) => eachText(chapter, codeOnceProblems) },
  { name: "what to watch for", problems: (chapter) => eachText(chapter, watchForProblems) },
  {
    name: "breadcrumbs",
    problems: (chapter) =>
      eachText(chapter, (markdown, file) => {
        const expected = breadcrumbs(chapter.chapters, chapter.chapter, file);
        return topMatter(markdown)
          .split("\n")
          .some((line) => line.trim() === expected)
          ? []
          : [`the top matter has no breadcrumb line of links: ${expected}`];
      }),
  },
  {
    name: "next chapter",
    problems: (chapter) =>
      eachText(chapter, (markdown, file) => {
        const link = nextLink(chapter.chapters, chapter.chapter, file);
        const next = sectionText(markdown, CHAPTER_SECTIONS[9][file]) ?? "";
        return next.includes(`](${link})`) ? [] : [`${CHAPTER_SECTIONS[9][file]} does not link ${link}`];
      }),
  },
  { name: "questions", problems: (chapter) => eachText(chapter, questionProblems) },
  {
    name: "glossary",
    problems: (chapter) =>
      eachText(chapter, (markdown, file) => glossaryProblems(markdown, file, chapter.glossary[file])),
  },
  {
    name: "exercises",
    problems: ({ exercises, texts }) => exerciseKindProblems(exercises, texts),
  },
  {
    name: "options",
    problems: (chapter) => {
      const own = ownOptions(chapter.options, chapter.chapter, chapter.chapters);
      return eachText(chapter, (markdown, file) => optionsProblems(markdown, file, own));
    },
  },
];

/** Where a chapter text links the options page, in its language. */
export const OPTIONS_PAGE: Record<ChapterText, string> = {
  "README.md": "../docs/options.md",
  "README.zh.md": "../docs/options.zh.md",
};

/**
 * The options a chapter adds (`--trace`), as the options page says (its rows naming the chapter);
 * the first chapter's are the contract's (the rows that name none).
 */
export function ownOptions(optionsPage: string, chapter: Chapter, chapters: readonly Chapter[]): Set<string> {
  const name = chapter.folder.split("-")[0];
  const first = chapters[0]?.folder === chapter.folder;
  const own = new Set<string>();
  for (const row of pageRows(optionsPage)) {
    if (row.from !== name && !(first && row.from === undefined)) continue;
    for (const span of row.names) {
      for (const [option] of span.matchAll(/--[a-z][a-z-]*/g)) own.add(option);
    }
  }
  return own;
}

/**
 * Options help in one place: a text links the options page, and the options it lists (a help
 * line in a code block, `  --name ...`; a table row whose first cell starts with `` `--name ``)
 * are only the chapter's own (`own`); the rest are the page's. Options named in prose are free.
 */
export function optionsProblems(markdown: string, file: ChapterText, own: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  if (!markdown.includes(`](${OPTIONS_PAGE[file]})`) && !markdown.includes(`](${OPTIONS_PAGE[file]}#`)) {
    problems.push(`does not link the options page (${OPTIONS_PAGE[file]})`);
  }
  const listed = new Set<string>();
  let fence: string | undefined;
  for (const line of markdown.split("\n")) {
    const opener = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (opener && (fence === undefined || opener.startsWith(fence))) {
      fence = fence === undefined ? opener : undefined;
      continue;
    }
    const option =
      fence !== undefined
        ? /^ {2}(?:-h, )?(--[a-z][a-z-]*)/.exec(line)?.[1]
        : /^\|\s*`(--[a-z][a-z-]*)/.exec(line)?.[1];
    if (option && !own.has(option)) listed.add(option);
  }
  if (listed.size > 0) {
    problems.push(
      `lists options another chapter adds (${[...listed].join(", ")}): name only this chapter's own (${
        [...own].join(", ") || "none"
      }) and link ${OPTIONS_PAGE[file]} for the rest`,
    );
  }
  return problems;
}

/** Every check's problems for one chapter, by check name. */
export function chapterCheckProblems(chapter: ChapterTexts): Record<string, string[]> {
  return Object.fromEntries(CHAPTER_CHECKS.map((check) => [check.name, check.problems(chapter)]));
}

/**
 * The breadcrumb line: every earlier chapter as a link to its text in the same language, then
 * this one in bold, joined by ` > ` (`[s01](../s01-agent-loop/README.md) > **s02**`).
 */
export function breadcrumbs(chapters: readonly Chapter[], chapter: Chapter, file: ChapterText): string {
  const name = (c: Chapter) => c.folder.split("-")[0];
  const earlier = chapters.filter((c) => c.number < chapter.number);
  return [...earlier.map((c) => `[${name(c)}](../${c.folder}/${file})`), `**${name(chapter)}**`].join(" > ");
}

/** Where What comes next links: the next chapter's text, or the course home after the last chapter. */
export function nextLink(chapters: readonly Chapter[], chapter: Chapter, file: ChapterText): string {
  const next = chapters.find((c) => c.number > chapter.number);
  if (next) return `../${next.folder}/${file}`;
  return file === "README.md" ? "../docs/index.md" : "../docs/index.zh.md";
}

/**
 * Each code block once: a ```ts block of How it works must not repeat The whole loop or What
 * changed, that is, its lines (whitespace normalised, blank ones dropped) must not be a run of a
 * ```ts block of those two sections or of a side of one of their ```diff hunks.
 */
export function codeOnceProblems(markdown: string, file: ChapterText): string[] {
  const [how, whole, changed] = [CHAPTER_SECTIONS[2][file], CHAPTER_SECTIONS[3][file], CHAPTER_SECTIONS[4][file]];
  const blocks = placedBlocks(markdown);
  const shown: { where: string; lines: string[] }[] = [];
  for (const block of blocks.filter((b) => b.section === whole || b.section === changed)) {
    const where = block.section;
    if (block.lang === "ts") shown.push({ where, lines: normalisedLines(block.body) });
    if (block.lang === "diff") {
      for (const hunk of block.body.split(/^@@.*$/m).filter((h) => h.trim() !== "")) {
        const sides = hunkSides(hunk);
        shown.push({ where, lines: sides.after }, { where, lines: sides.before });
      }
    }
  }
  const problems: string[] = [];
  for (const block of blocks.filter((b) => b.section === how && b.lang === "ts")) {
    const lines = normalisedLines(block.body);
    const repeated = shown.find((other) => lines.length > 0 && containsRun(other.lines, lines));
    if (repeated) {
      problems.push(`${how} repeats code ${repeated.where} shows: ${JSON.stringify(lines[0].slice(0, 60))}…`);
    }
  }
  return problems;
}

/** What to watch for: the last `###` of Try it's main path, with no code block after it there. */
export function watchForProblems(markdown: string, file: ChapterText): string[] {
  const tryIt = sectionText(markdown, CHAPTER_SECTIONS[7][file]);
  if (tryIt === undefined) return []; // the shape check names the missing section
  const lines = mainPath(tryIt).split("\n");
  const headings = lines.filter((line) => /^### /.test(line)).map((line) => line.trimEnd());
  if (headings.at(-1) !== WATCH_FOR[file]) {
    return [`${CHAPTER_SECTIONS[7][file]} does not end with ${WATCH_FOR[file]} (its last ### on the main path)`];
  }
  const after = lines.slice(lines.findLastIndex((line) => line.trimEnd() === WATCH_FOR[file]));
  return after.some((line) => /^\s*(`{3,}|~{3,})/.test(line))
    ? [`a code block follows ${WATCH_FOR[file]} on the main path: the samples come before it`]
    : [];
}

/** The questions: the last `###` of Exercises, 3–5 `- ` questions, then one folded block of as many answers. */
export function questionProblems(markdown: string, file: ChapterText): string[] {
  const heading = QUESTIONS.heading[file];
  const exercises = sectionText(markdown, EXERCISES_HEADINGS[file]);
  if (exercises === undefined) return [];
  const lines = exercises.split("\n");
  const at = lines.findIndex((line) => line.trimEnd() === heading);
  if (at === -1) return [`${EXERCISES_HEADINGS[file]} has no ${heading}`];
  const rest = lines.slice(at + 1);
  if (rest.some((line) => /^### /.test(line))) return [`${heading} is not the last ### of ${EXERCISES_HEADINGS[file]}`];
  const text = rest.join("\n");
  const questions = mainPath(text)
    .split("\n")
    .filter((line) => /^- /.test(line)).length;
  const problems: string[] = [];
  if (questions < QUESTIONS.min || questions > QUESTIONS.max) {
    problems.push(`${heading} asks ${questions} questions (- items); ${QUESTIONS.min} to ${QUESTIONS.max}`);
  }
  const folds = foldedBlocks(text);
  const answers = folds.find((fold) => fold.summary.trim() === QUESTIONS.answers[file]);
  if (folds.length !== 1 || !answers) {
    problems.push(
      `${heading} folds its answers in one <details> block with <summary>${QUESTIONS.answers[file]}</summary>`,
    );
  } else {
    const given = answers.text.split("\n").filter((line) => /^- /.test(line)).length;
    if (given !== questions) problems.push(`${heading} asks ${questions} questions and folds ${given} answers`);
  }
  return problems;
}

/** The headings (`##`, `###`) and table header cells of a text, outside code, folded ones included. */
export function headingsAndHeaders(markdown: string): string[] {
  const found: string[] = [];
  const lines = markdown.split("\n");
  let fence: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const opener = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (opener && (fence === undefined || opener.startsWith(fence))) {
      fence = fence === undefined ? opener : undefined;
      continue;
    }
    if (fence !== undefined) continue;
    if (/^#{2,3} /.test(line)) found.push(line.replace(/^#+ /, "").trim());
    const separator = /^\s*\|[\s:|-]+\|\s*$/.test(lines[i + 1] ?? "") && /-/.test(lines[i + 1] ?? "");
    if (/^\s*\|/.test(line) && separator && !/^\s*\|/.test(lines[i - 1] ?? "")) {
      found.push(
        ...line
          .trim()
          .replace(/^\||\|$/g, "")
          .split(/(?<!\\)\|/)
          .map((cell) => cell.trim()),
      );
    }
  }
  return found.filter((text) => text !== "");
}

/** The bold titles of a glossary's entries (`**Dispatch map.**` → `Dispatch map.`). */
export function glossaryTitles(glossary: string): string[] {
  return [...glossary.matchAll(/^\*\*(.+?)\*\*/gm)].map((m) => m[1]);
}

/** Whether `form` occurs in `text` as the text's language finds words: English whole words (a plural allowed), Chinese as written. */
function usesForm(text: string, form: string, file: ChapterText): boolean {
  if (file === "README.zh.md") return text.includes(form);
  const escaped = form.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(?<![\\w-])${escaped}(?:s|es)?(?![\\w-])`, "i").test(text);
}

/**
 * The glossary check: every course term (`COURSE_TERMS`) and every code span in the text's headings
 * and table header cells is in the glossary of its language (a term: an entry title holding its
 * glossary word; a code span: the same span anywhere in it); and the Chinese text uses none of a
 * term's avoided words outside code.
 */
export function glossaryProblems(markdown: string, file: ChapterText, glossary: string): string[] {
  const problems: string[] = [];
  const titles = glossaryTitles(glossary);
  const places = headingsAndHeaders(markdown);
  const forms = (term: CourseTerm) => (file === "README.md" ? term.en : term.zh);
  const missing = new Map<string, string[]>(); // the term → the headings and cells it is in
  const lacks = (term: string, place: string) => missing.set(term, [...(missing.get(term) ?? []), `"${place}"`]);
  for (const place of places) {
    const words = place.replaceAll("`", "");
    for (const term of COURSE_TERMS) {
      if (!forms(term).some((form) => usesForm(words, form, file))) continue;
      const word = forms(term)[0];
      if (!titles.some((title) => usesForm(title.replaceAll("`", ""), word, file))) lacks(`"${word}"`, place);
    }
    for (const [span] of place.matchAll(/`[^`]+`/g)) {
      if (!glossary.includes(span)) lacks(span, place);
    }
  }
  if (missing.size > 0) {
    const named = [...missing].map(([term, where]) => `${term} (in ${[...new Set(where)].join(", ")})`);
    problems.push(`the glossary does not define: ${named.join("; ")}`);
  }
  if (file === "README.zh.md") {
    const prose = markdown.replace(/^(\s*)(`{3,}|~{3,})[\s\S]*?^\1\2\s*$/gm, "").replace(/`[^`\n]*`/g, "");
    for (const term of COURSE_TERMS) {
      for (const avoided of term.zhAvoid ?? []) {
        if (prose.includes(avoided))
          problems.push(`uses ${avoided} for ${term.en[0]}; the course's word is ${term.zh[0]}`);
      }
    }
  }
  return problems;
}
