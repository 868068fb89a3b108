/**
 * `pnpm test:texts [chapter ...]`: the measures of issue 24 for every chapter (or those named),
 * as a text helper reads them while rewriting: the figures (the main path in characters, the
 * Chinese one measured, the minutes and the reading-time line the texts should carry), then each
 * check that does not hold, with what it found. A chapter that texts-not-yet-rewritten.ts lists is
 * marked so; exits 1 when a chapter it does not list fails a check (as `pnpm test` would).
 */
import { characters, MAIN_PATH_LIMIT, mainPath, readingFigures, readingLine, textMeasure } from "@harness/testkit";
import { CHAPTER_CHECKS, chapterCheckProblems, readChapterTexts } from "./src/chapter-shape.ts";
import { findChapters } from "./src/find-chapters.ts";
import { TEXTS_NOT_YET_REWRITTEN } from "./src/texts-not-yet-rewritten.ts";

const wanted = process.argv.slice(2);
const chapters = findChapters();
const unknown = wanted.filter((name) => !chapters.some((chapter) => chapter.folder === name));
if (unknown.length > 0) {
  console.error(`test:texts: no chapter named ${unknown.join(", ")}`);
  process.exit(1);
}

let failing = 0;
for (const chapter of chapters.filter((c) => wanted.length === 0 || wanted.includes(c.folder))) {
  const texts = await readChapterTexts(chapter, chapters);
  const listed = TEXTS_NOT_YET_REWRITTEN.includes(chapter.folder);
  const en = textMeasure(mainPath(texts.texts["README.md"]), "README.md");
  const zh = textMeasure(mainPath(texts.texts["README.zh.md"]), "README.zh.md");
  const figures = readingFigures(texts.texts["README.md"], chapter.path);
  const problems = chapterCheckProblems(texts);
  const failed = CHAPTER_CHECKS.filter((check) => problems[check.name].length > 0);
  const state = failed.length === 0 ? "meets every check" : `fails ${failed.map((c) => c.name).join(", ")}`;
  console.log(`${chapter.folder}${listed ? " (not yet rewritten)" : ""}: ${state}`);
  console.log(
    `  main path: README.md ${en.toLocaleString("en-US")} characters, README.zh.md ${zh.toLocaleString("en-US")} ` +
      `measured (limit ${MAIN_PATH_LIMIT.toLocaleString("en-US")}; the whole README.md ${characters(texts.texts["README.md"]).toLocaleString("en-US")})`,
  );
  console.log(`  ${readingLine("README.md", figures)}`);
  console.log(`  ${readingLine("README.zh.md", figures)}`);
  for (const check of failed) {
    console.log(`  ✗ ${check.name}`);
    for (const problem of problems[check.name]) console.log(`      ${problem}`);
  }
  if (!listed && failed.length > 0) failing++;
}
process.exit(failing > 0 ? 1 : 0);
