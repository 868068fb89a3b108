/**
 * The measures of a chapter text (issue 24): its main path (what a reader meets without opening a
 * folded `<details>` block), how long that takes to read, how many lines of code the chapter has,
 * and whether the Chinese text is in step with the English one. Pure functions of the texts and
 * the chapter's folder: docs/src/chapter-shape.ts checks every chapter with them, and a chapter's
 * `chapterTextSuite` checks its own.
 *
 * The rules, exactly:
 * - **Main path**: the text with every `<details>…</details>` block removed (the folded depth),
 *   code blocks included. README.md's is measured in characters (Unicode code points), at most
 *   `MAIN_PATH_LIMIT` (12,000).
 * - **In step**: README.zh.md's main path measured in English-equivalent characters, a Chinese
 *   character (Han, CJK punctuation, full-width forms) counting `CJK_WEIGHT` (2.5) and every
 *   other character one, is at most the same 12,000. (A faithful translation's prose has about
 *   0.6 of the English characters, and a Chinese character reads as about 2.5 English ones: the
 *   course's texts measure 2.6 to 2.8, so a translation measures a little under its English.)
 *   And the two texts have the same `##` sections with as many `###` headings in each, as many
 *   folded blocks, and the same code blocks in the same order, each in the same place (the main
 *   path, or the same folded block); a shell comment (`# ...`), a diff hunk's label (`@@ ...`)
 *   and a mermaid diagram (its labels) may be translated.
 * - **Reading time**: the top matter (before the first `##`) has, on a line of its own,
 *   `**Reading:** about N minutes · **Code:** src/ L lines (libraries one folder down: M)`, in
 *   Chinese `**阅读：** 约 N 分钟 · **代码：** src/ L 行（下一层的库：M 行）`, where N is the
 *   English main path's characters ÷ `CHARACTERS_PER_MINUTE` (800) rounded up (the same N in
 *   both languages), L the lines of the chapter's top-level `src/*.ts` files and M those of the
 *   `.ts` files in its folders below `src/` (the parenthesis left out when it has none). Numbers
 *   of four digits or more are written with a comma (`1,604`).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** The two chapter texts. */
export type ChapterTextFile = "README.md" | "README.zh.md";

/** The most characters a main path may have (README.md: characters; README.zh.md: `textMeasure`). */
export const MAIN_PATH_LIMIT = 12_000;
/** What one Chinese character counts in README.zh.md's measure, in English characters. */
export const CJK_WEIGHT = 2.5;
/** How many characters of a main path a reader reads in a minute. */
export const CHARACTERS_PER_MINUTE = 800;

const CJK = /[\p{Script=Han}\u3000-\u303f\uff00-\uffef]/gu;
const FENCE = /^(\s*)(`{3,}|~{3,})(.*)$/;
const DETAILS_OPEN = /^\s*<details(?:\s[^>]*)?>/;
const DETAILS_CLOSE = /<\/details>\s*$/;

/** One line of a text, and where it lies. */
interface ScannedLine {
  text: string;
  /** Inside a fenced code block (its fences included). */
  code: boolean;
  /** The fence that opens or closes a block, when the line is one. */
  fence?: "open" | "close";
  /** The index of the `<details>` block it is in (its tags included), or -1 on the main path. */
  folded: number;
  /** The `##` heading of its section ("" in the top matter). */
  section: string;
}

/** Every line of a text with its place: in code or not, folded or not, under which `##`. */
function scan(markdown: string): ScannedLine[] {
  const scanned: ScannedLine[] = [];
  let fence: string | undefined;
  let depth = 0;
  let folds = -1;
  let section = "";
  for (const text of markdown.split("\n")) {
    const opener = FENCE.exec(text)?.[2];
    const folded = depth > 0 ? folds : -1;
    if (fence === undefined && opener) {
      fence = opener;
      scanned.push({ text, code: true, fence: "open", folded, section });
      continue;
    }
    if (fence !== undefined) {
      const closes = opener?.startsWith(fence) === true && FENCE.exec(text)?.[3].trim() === "";
      if (closes) fence = undefined;
      scanned.push({ text, code: true, fence: closes ? "close" : undefined, folded, section });
      continue;
    }
    if (DETAILS_OPEN.test(text)) {
      if (depth === 0) folds++;
      depth++;
    }
    if (depth === 0 && /^## /.test(text)) section = text.trimEnd();
    scanned.push({ text, code: false, folded: depth > 0 ? folds : -1, section });
    if (DETAILS_CLOSE.test(text) && depth > 0) depth--;
  }
  return scanned;
}

/** A text's main path: every line outside its `<details>…</details>` blocks, code included. */
export function mainPath(markdown: string): string {
  return scan(markdown)
    .filter((line) => line.folded === -1)
    .map((line) => line.text)
    .join("\n");
}

/** A text's folded blocks, in order: each `<details>` block's summary and whole text, tags included. */
export function foldedBlocks(markdown: string): { summary: string; text: string }[] {
  const blocks: { summary: string; text: string }[] = [];
  for (const line of scan(markdown)) {
    if (line.folded === -1) continue;
    blocks[line.folded] ??= { summary: "", text: "" };
    const block = blocks[line.folded];
    block.text += block.text === "" ? line.text : `\n${line.text}`;
    const summary = /<summary>(.*?)<\/summary>/.exec(line.text)?.[1];
    if (summary !== undefined && block.summary === "" && !line.code) block.summary = summary;
  }
  return blocks;
}

/** One fenced code block and its place in the text. */
export interface PlacedBlock {
  /** The first word of its info string (`ts`, `sh`, `diff`; "" for none). */
  lang: string;
  /** Its lines between the fences, each ending in a newline, as written. */
  body: string;
  /** The `##` heading of its section ("" in the top matter). */
  section: string;
  /** The index of the `<details>` block it is in, or -1 on the main path. */
  folded: number;
}

/** Every fenced code block of a text, in order, with its section and fold. */
export function placedBlocks(markdown: string): PlacedBlock[] {
  const blocks: PlacedBlock[] = [];
  let open: PlacedBlock | undefined;
  for (const line of scan(markdown)) {
    if (line.fence === "open") {
      const info = FENCE.exec(line.text)?.[3].trim() ?? "";
      open = { lang: info.split(/\s+/)[0] ?? "", body: "", section: line.section, folded: line.folded };
    } else if (line.fence === "close" && open) {
      blocks.push(open);
      open = undefined;
    } else if (line.code && open) {
      open.body += `${line.text}\n`;
    }
  }
  return blocks;
}

/** The text of a `##` section (from its heading to the next `##`), or undefined when there is none. */
export function sectionText(markdown: string, heading: string): string | undefined {
  const lines = scan(markdown);
  const start = lines.findIndex((line) => !line.code && line.folded === -1 && line.text.trimEnd() === heading);
  if (start === -1) return undefined;
  const rest = lines.slice(start);
  const end = rest.findIndex((line, i) => i > 0 && !line.code && line.folded === -1 && /^## /.test(line.text));
  return (end === -1 ? rest : rest.slice(0, end)).map((line) => line.text).join("\n");
}

/** The `###` headings of each `##` section, outside code (folded ones included). */
export function subheadings(markdown: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const line of scan(markdown)) {
    if (line.code || !/^### /.test(line.text)) continue;
    found.set(line.section, [...(found.get(line.section) ?? []), line.text.trimEnd()]);
  }
  return found;
}

/** The top matter: the lines before the first `##` heading (outside code). */
export function topMatter(markdown: string): string {
  return scan(markdown)
    .filter((line) => line.section === "")
    .map((line) => line.text)
    .join("\n");
}

/** How many characters (Unicode code points) a text has. */
export function characters(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/**
 * A main path's measure: README.md's characters; README.zh.md's English-equivalent characters,
 * each Chinese character counting `CJK_WEIGHT`, rounded to a whole number.
 */
export function textMeasure(text: string, file: ChapterTextFile): number {
  const all = characters(text);
  if (file === "README.md") return all;
  const cjk = text.match(CJK)?.length ?? 0;
  return Math.round(all - cjk + cjk * CJK_WEIGHT);
}

/** The minutes a main path of this many characters takes to read, rounded up. */
export function readingMinutes(mainPathCharacters: number): number {
  return Math.ceil(mainPathCharacters / CHARACTERS_PER_MINUTE);
}

/** The lines of a chapter's code: its top-level `src/*.ts`, and the `.ts` files in the folders below. */
export interface CodeLines {
  top: number;
  libraries: number;
}

/** Count the lines (newlines, as `wc -l` does) of a chapter's top-level `src/*.ts` and of its libraries. */
export function codeLines(chapterDir: string): CodeLines {
  const src = join(chapterDir, "src");
  const lines = (file: string) => readFileSync(file, "utf8").split("\n").length - 1;
  const counted: CodeLines = { top: 0, libraries: 0 };
  if (!existsSync(src)) return counted;
  for (const entry of readdirSync(src, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".ts")) continue;
    const file = join(entry.parentPath, entry.name);
    if (entry.parentPath === src) counted.top += lines(file);
    else counted.libraries += lines(file);
  }
  return counted;
}

/** The figures a reading-time line states. */
export interface ReadingFigures extends CodeLines {
  minutes: number;
}

/** A number as the texts write it: a comma before each three digits from four digits on. */
function written(n: number): string {
  return n.toLocaleString("en-US");
}

/** The reading-time line of the top matter, in the text's language. */
export function readingLine(file: ChapterTextFile, figures: ReadingFigures): string {
  const { minutes, top, libraries } = figures;
  if (file === "README.md") {
    const below = libraries > 0 ? ` (libraries one folder down: ${written(libraries)})` : "";
    return `**Reading:** about ${minutes} minutes · **Code:** src/ ${written(top)} lines${below}`;
  }
  const below = libraries > 0 ? `（下一层的库：${written(libraries)} 行）` : "";
  return `**阅读：** 约 ${minutes} 分钟 · **代码：** src/ ${written(top)} 行${below}`;
}

/** The figures of a chapter's reading-time line: minutes from the English main path, lines from its code. */
export function readingFigures(english: string, chapterDir: string): ReadingFigures {
  return { minutes: readingMinutes(characters(mainPath(english))), ...codeLines(chapterDir) };
}

/** What is wrong with a text's reading-time line, or nothing (`figures` from `readingFigures`). */
export function readingTimeProblems(markdown: string, file: ChapterTextFile, figures: ReadingFigures): string[] {
  const expected = readingLine(file, figures);
  const lines = topMatter(markdown).split("\n");
  if (lines.some((line) => line.trim() === expected)) return [];
  const label = file === "README.md" ? "**Reading:**" : "**阅读：**";
  const stated = lines.find((line) => line.trim().startsWith(label));
  return stated === undefined
    ? [`the top matter has no reading-time line; it should say: ${expected}`]
    : [`the top matter says ${stated.trim()}; the main path and the code make it: ${expected}`];
}

/** The fenced blocks of a text as two texts must share them: mermaid left out, comments and hunk labels blanked. */
function sharedCode(markdown: string): { block: string; place: string }[] {
  return placedBlocks(markdown)
    .filter((block) => block.lang !== "mermaid")
    .map((block) => ({
      block: `${block.lang}\n${translatable(block)}`,
      place: block.folded === -1 ? "the main path" : `folded block ${block.folded + 1}`,
    }));
}

/** A block's body with what a translation may change blanked: shell comments, diff hunk labels. */
function translatable(block: Pick<PlacedBlock, "body">): string {
  return block.body.replace(/\s+#.*$/gm, "").replace(/^@@.*$/gm, "@@");
}

/**
 * Where README.zh.md shows other code than README.md: a block one has and the other has not at
 * that position, or in another place (the main path, a folded block). Empty when they show the
 * same code in the same order and places.
 */
export function codeDifferences(english: string, chinese: string): string[] {
  const [en, zh] = [sharedCode(english), sharedCode(chinese)];
  const problems: string[] = [];
  for (let i = 0; i < Math.max(en.length, zh.length); i++) {
    const [a, b] = [en[i], zh[i]];
    if (a?.block !== b?.block) {
      problems.push(`code block ${i + 1}: ${firstDifference(a?.block, b?.block)}`);
      break; // the rest is shifted: one difference says where to look
    }
    if (a.place !== b.place)
      problems.push(`code block ${i + 1} is in ${a.place} of README.md, ${b.place} of README.zh.md`);
  }
  return problems;
}

/** Where two blocks (`lang\nbody`) first differ, in a few words. */
function firstDifference(english: string | undefined, chinese: string | undefined): string {
  if (english === undefined) return `README.zh.md has one more (${JSON.stringify(chinese?.slice(0, 60))})`;
  if (chinese === undefined) return `README.md has one more (${JSON.stringify(english.slice(0, 60))})`;
  const [a, b] = [english.split("\n"), chinese.split("\n")];
  const at = a.findIndex((line, i) => line !== b[i]);
  const line = at === -1 ? b.length : at;
  return `line ${line} differs: README.md ${JSON.stringify(a[line] ?? "")}, README.zh.md ${JSON.stringify(b[line] ?? "")}`;
}

/** What is wrong with a chapter's main path: README.md over the limit, README.zh.md over it or out of step. */
export function mainPathProblems(english: string, chinese: string): string[] {
  const problems: string[] = [];
  const en = textMeasure(mainPath(english), "README.md");
  const zh = textMeasure(mainPath(chinese), "README.zh.md");
  if (en > MAIN_PATH_LIMIT) {
    problems.push(`README.md's main path has ${written(en)} characters; at most ${written(MAIN_PATH_LIMIT)}`);
  }
  if (zh > MAIN_PATH_LIMIT) {
    problems.push(
      `README.zh.md's main path measures ${written(zh)} characters (a Chinese character counting ${CJK_WEIGHT}); at most ${written(MAIN_PATH_LIMIT)}`,
    );
  }
  return [...problems, ...inStepProblems(english, chinese)];
}

/** Where the two texts are not in step: sections, `###` headings, folded blocks, code. */
export function inStepProblems(english: string, chinese: string): string[] {
  const problems: string[] = [];
  const [en, zh] = [subheadings(english), subheadings(chinese)];
  const sections = (text: string) =>
    scan(text)
      .filter((line) => !line.code && line.folded === -1 && /^## /.test(line.text))
      .map((line) => line.text.trimEnd());
  const [enSections, zhSections] = [sections(english), sections(chinese)];
  if (enSections.length !== zhSections.length) {
    problems.push(`README.md has ${enSections.length} ## sections, README.zh.md ${zhSections.length}`);
  } else {
    enSections.forEach((heading, i) => {
      const [a, b] = [en.get(heading)?.length ?? 0, zh.get(zhSections[i])?.length ?? 0];
      if (a !== b) problems.push(`${heading} has ${a} ### headings, ${zhSections[i]} ${b}`);
    });
  }
  const [enFolds, zhFolds] = [foldedBlocks(english).length, foldedBlocks(chinese).length];
  if (enFolds !== zhFolds) problems.push(`README.md has ${enFolds} folded blocks, README.zh.md ${zhFolds}`);
  return [...problems, ...codeDifferences(english, chinese)];
}
