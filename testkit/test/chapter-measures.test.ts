import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  CJK_WEIGHT,
  characters,
  codeDifferences,
  codeLines,
  foldedBlocks,
  mainPath,
  placedBlocks,
  readingLine,
  readingMinutes,
  readingTimeProblems,
  sectionText,
  subheadings,
  textMeasure,
  topMatter,
} from "../src/chapter-measures.ts";

const text = [
  "# s01: Title",
  "",
  "**Reading:** about 1 minutes · **Code:** src/ 3 lines",
  "",
  "## How it works",
  "",
  "```ts",
  "const a = 1;",
  "```",
  "",
  "<details>",
  "<summary>Why <code>a</code></summary>",
  "",
  "### Deeper",
  "",
  "```sh",
  "pnpm s01 # run it",
  "<details>",
  "```",
  "",
  "</details>",
  "",
  "## Try it",
  "",
  "- item",
].join("\n");

describe("mainPath and foldedBlocks", () => {
  it("drops each <details> block, tags and all, and keeps the rest, code included", () => {
    expect(mainPath(text)).not.toContain("Deeper");
    expect(mainPath(text)).toContain("const a = 1;");
    expect(mainPath(text)).toContain("## Try it");
  });

  it("reads a <details> inside a code block as code, not as a fold", () => {
    const [fold] = foldedBlocks(text);
    expect(foldedBlocks(text)).toHaveLength(1);
    expect(fold.summary).toBe("Why <code>a</code>");
    expect(fold.text).toMatch(/^<details>[\s\S]*<\/details>$/);
  });

  it("places each code block: its language, section and fold", () => {
    expect(placedBlocks(text).map(({ lang, section, folded }) => ({ lang, section, folded }))).toEqual([
      { lang: "ts", section: "## How it works", folded: -1 },
      { lang: "sh", section: "## How it works", folded: 0 },
    ]);
    expect(placedBlocks(text)[1].body).toBe("pnpm s01 # run it\n<details>\n");
  });

  it("finds a section's text, its ### headings and the top matter", () => {
    expect(sectionText(text, "## Try it")).toBe("## Try it\n\n- item");
    expect(sectionText(text, "## Nowhere")).toBeUndefined();
    expect(subheadings(text).get("## How it works")).toEqual(["### Deeper"]);
    expect(topMatter(text)).toContain("**Reading:**");
    expect(topMatter(text)).not.toContain("## How it works");
  });
});

describe("textMeasure", () => {
  it("counts README.md in characters, and a Chinese character in README.zh.md as 2.5", () => {
    expect(textMeasure("abc ──", "README.md")).toBe(6);
    expect(characters("𝑥")).toBe(1);
    expect(textMeasure("读三个字，ok", "README.zh.md")).toBe(Math.round(5 * CJK_WEIGHT + 2));
  });

  it("gives minutes at 800 characters a minute, rounded up", () => {
    expect(readingMinutes(800)).toBe(1);
    expect(readingMinutes(801)).toBe(2);
    expect(readingMinutes(11_999)).toBe(15);
  });
});

describe("codeLines and readingLine", () => {
  const dir = mkdtempSync(join(tmpdir(), "measures-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("counts the top-level src/*.ts apart from the folders below", () => {
    mkdirSync(join(dir, "src", "tools", "deep"), { recursive: true });
    writeFileSync(join(dir, "src", "loop.ts"), "a\nb\n");
    writeFileSync(join(dir, "src", "notes.md"), "not code\n");
    writeFileSync(join(dir, "src", "tools", "one.ts"), "a\n".repeat(1000));
    writeFileSync(join(dir, "src", "tools", "deep", "two.ts"), "a\n".repeat(604));
    expect(codeLines(dir)).toEqual({ top: 2, libraries: 1604 });
  });

  it("writes the line in each language, the libraries only when there are some", () => {
    expect(readingLine("README.md", { minutes: 14, top: 827, libraries: 1604 })).toBe(
      "**Reading:** about 14 minutes · **Code:** src/ 827 lines (libraries one folder down: 1,604)",
    );
    expect(readingLine("README.zh.md", { minutes: 14, top: 827, libraries: 1604 })).toBe(
      "**阅读：** 约 14 分钟 · **代码：** src/ 827 行（下一层的库：1,604 行）",
    );
    expect(readingLine("README.md", { minutes: 3, top: 1200, libraries: 0 })).toBe(
      "**Reading:** about 3 minutes · **Code:** src/ 1,200 lines",
    );
  });

  it("finds the line in the top matter, or says what it should be", () => {
    expect(readingTimeProblems(text, "README.md", { minutes: 1, top: 3, libraries: 0 })).toEqual([]);
    expect(readingTimeProblems(text, "README.md", { minutes: 2, top: 3, libraries: 0 })).toEqual([
      "the top matter says **Reading:** about 1 minutes · **Code:** src/ 3 lines; the main path and the code make it: **Reading:** about 2 minutes · **Code:** src/ 3 lines",
    ]);
    expect(readingTimeProblems("# t\n\n## A\n", "README.zh.md", { minutes: 1, top: 3, libraries: 0 })).toEqual([
      "the top matter has no reading-time line; it should say: **阅读：** 约 1 分钟 · **代码：** src/ 3 行",
    ]);
  });
});

describe("codeDifferences", () => {
  it("lets comments, hunk labels and diagrams be translated, nothing else", () => {
    const en = "```sh\nls # list\n```\n```diff\n@@ the change\n-a\n+b\n```\n```mermaid\nflowchart LR\n  a[one]\n```\n";
    const zh = "```sh\nls # 列出\n```\n```diff\n@@ 改动\n-a\n+b\n```\n```mermaid\nflowchart LR\n  a[一]\n```\n";
    expect(codeDifferences(en, zh)).toEqual([]);
    expect(codeDifferences(en, zh.replace("+b", "+c"))).toEqual([
      'code block 2: line 3 differs: README.md "+b", README.zh.md "+c"',
    ]);
    expect(codeDifferences(en, zh.replace(/```sh[\s\S]*?```\n/, ""))).toHaveLength(1);
  });
});
