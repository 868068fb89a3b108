/**
 * The chapter shape (docs/README.md, "The chapter shape"): every chapter text, English and Chinese,
 * has the ten sections in order, links the glossary and the troubleshooting page at the top, draws
 * a mermaid diagram and holds two to four exercises. First every chapter of this course, one test
 * per text, whose failure lists what the text lacks; then made-up texts, to show each rule fires.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  CHAPTER_SECTIONS,
  type ChapterText,
  chapterShapeProblems,
  outOfOrder,
  sectionHeadings,
  TOP_MATTER_LINKS,
} from "../src/chapter-shape.ts";
import { findChapters, REPO_ROOT } from "../src/find-chapters.ts";

const TEXTS: ChapterText[] = ["README.md", "README.zh.md"];

describe("the chapter texts of this course", () => {
  const files = findChapters().flatMap((chapter) => TEXTS.map((text) => `${chapter.folder}/${text}`));

  it.each(files)("%s keeps the chapter shape", (file) => {
    const text = readFileSync(join(REPO_ROOT, file), "utf8");
    expect(chapterShapeProblems(text, file.endsWith(".zh.md") ? "README.zh.md" : "README.md")).toEqual([]);
  });
});

/** A text in the shape, in one language: every section, the links, a diagram and two exercises. */
function shaped(file: ChapterText, change: (sections: string[]) => string[] = (s) => s): string {
  const links = TOP_MATTER_LINKS[file].map((link) => `[page](${link})`).join(" · ");
  const body = (heading: string) => {
    if (heading === CHAPTER_SECTIONS[1][file]) return "```mermaid\nflowchart LR\n  a --> b\n```";
    if (heading === CHAPTER_SECTIONS[8][file])
      return "1. Change a line.\n\n   ```sh\n   pnpm test\n   ```\n\n2. Another.";
    return "Text.";
  };
  const sections = change(CHAPTER_SECTIONS.map((section) => section[file]));
  return [`# s09: A chapter\n\n${links}\n`, ...sections.map((h) => `${h}\n\n${body(h)}\n`)].join("\n");
}

describe("chapterShapeProblems", () => {
  it.each(TEXTS)("finds nothing wrong with a %s in the shape", (file) => {
    expect(chapterShapeProblems(shaped(file), file)).toEqual([]);
  });

  it("names the missing sections and those the shape does not have", () => {
    const text = shaped("README.md", (s) => s.filter((h) => h !== "## Common mistakes").concat("## Run the tests"));
    expect(chapterShapeProblems(text, "README.md")).toEqual([
      "missing sections: ## Common mistakes",
      "sections the shape does not have (make them ### inside one of its sections): ## Run the tests",
    ]);
  });

  it("names the sections out of order, and only those", () => {
    const text = shaped("README.zh.md", (s) => [s[0], s[1], s[3], s[2], ...s.slice(4, 9), s[9]]);
    const [problem] = chapterShapeProblems(text, "README.zh.md");
    expect(problem).toMatch(/^sections out of order: ## (工作原理|完整的循环) \(the order is: ## 问题 · ## 核心思想/);
  });

  it("reads a ## inside a code block as code, not as a section", () => {
    const text = shaped("README.md").replace(
      "## How it works\n\nText.",
      "## How it works\n\n```md\n## Not a section\n```",
    );
    expect(sectionHeadings(text)).not.toContain("## Not a section");
    expect(chapterShapeProblems(text, "README.md")).toEqual([]);
  });

  it("wants the glossary and troubleshooting links in the top matter, in the text's language", () => {
    const english = shaped("README.md").replace("[page](../docs/troubleshooting.md)", "");
    expect(chapterShapeProblems(english, "README.md")).toEqual([
      "the top matter (before the first ##) does not link ../docs/troubleshooting.md",
    ]);
    const chinese = shaped("README.zh.md").replace("../docs/glossary.zh.md", "../docs/glossary.md");
    expect(chapterShapeProblems(chinese, "README.zh.md")).toEqual([
      "the top matter (before the first ##) does not link ../docs/glossary.zh.md",
    ]);
  });

  it("wants a mermaid diagram", () => {
    const text = shaped("README.md").replace("```mermaid", "```text");
    expect(chapterShapeProblems(text, "README.md")).toEqual(["no ```mermaid diagram"]);
  });

  it("wants two to four exercises, numbered from 1", () => {
    const one = shaped("README.md").replace("\n2. Another.", "");
    expect(chapterShapeProblems(one, "README.md")).toEqual([
      "## Exercises holds 1 numbered exercises (1); it must hold 2 to 4, numbered 1, 2, ...",
    ]);
    const skipped = shaped("README.md").replace("2. Another.", "3. Another.");
    expect(chapterShapeProblems(skipped, "README.md")).toHaveLength(1);
  });
});

describe("outOfOrder", () => {
  it("names the fewest positions whose moving puts the rest in order", () => {
    expect(outOfOrder([0, 1, 2, 3])).toEqual([]);
    expect(outOfOrder([0, 2, 1, 3])).toHaveLength(1);
    expect(outOfOrder([9, 0, 1, 2])).toEqual([0]);
    expect(outOfOrder([])).toEqual([]);
  });
});
