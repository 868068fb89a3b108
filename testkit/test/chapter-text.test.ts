import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  changedLines,
  codeFences,
  commandWords,
  containsRun,
  functionSource,
  headerComment,
  hunkCount,
  hunkSides,
  lessonDiffProblems,
  normalisedLines,
  proseOf,
} from "../src/chapter-text.ts";

const markdown = [
  "Some prose with `inline code`.",
  "```ts",
  "const a = 1;",
  "```",
  "- a list item:",
  "",
  "  ```ts",
  "  const b = 2;",
  "  ```",
  "```text",
  "not ts",
  "```",
].join("\n");

describe("codeFences", () => {
  it("finds the blocks of one language, indented ones included", () => {
    expect(codeFences(markdown, "ts")).toEqual(["const a = 1;\n", "  const b = 2;\n"]);
    expect(codeFences(markdown, "text")).toEqual(["not ts\n"]);
  });
});

describe("proseOf", () => {
  it("drops fenced blocks, and inline code only when asked", () => {
    expect(proseOf(markdown)).toContain("`inline code`");
    expect(proseOf(markdown)).not.toContain("const a");
    expect(proseOf(markdown, { inlineCode: false })).not.toContain("inline code");
  });
});

describe("containsRun", () => {
  it("finds an excerpt as a contiguous run of normalised lines, whatever its indentation", () => {
    const source = normalisedLines("function f() {\n    return   1;\n}\n");
    expect(containsRun(source, normalisedLines("return 1;\n}"))).toBe(true);
    expect(containsRun(source, normalisedLines("function f() {\n}"))).toBe(false);
  });
});

describe("the lesson's diff", () => {
  const hunk = [" kept", "-removed", "+added", "+  added too", " kept after"].join("\n");

  it("splits a hunk into its two sides, context on both", () => {
    expect(hunkSides(hunk)).toEqual({
      before: ["kept", "removed", "kept after"],
      after: ["kept", "added", "added too", "kept after"],
    });
  });

  it("lists the changed lines, not the file headers", () => {
    expect(changedLines(`--- a.ts\n+++ b.ts\n@@ -1 +1 @@\n${hunk}  \n`)).toEqual([
      "-removed",
      "+added",
      "+  added too",
    ]);
  });
});

describe("functionSource and headerComment", () => {
  it("reads a function from its doc comment to its closing brace, and a file's header", () => {
    const dir = mkdtempSync(join(tmpdir(), "chapter-text-"));
    const file = join(dir, "loop.ts");
    writeFileSync(
      file,
      "/**\n * the header\n */\nconst x = 1;\n\n/** Run. */\nexport async function agentLoop() {  \n  return x;\n}\n",
    );
    try {
      expect(functionSource(file)).toBe("/** Run. */\nexport async function agentLoop() {\n  return x;\n}");
      expect(headerComment(file)).toEqual(["/**", " * the header", " */"]);
      expect(() => functionSource(file, "function none(")).toThrow(/no line starting with function none\(/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("commandWords", () => {
  it("undoes the quoting a sample's command uses", () => {
    expect(commandWords(`pnpm s06 --allow 'Bash(node test.js)' "Push this branch"`)).toEqual([
      "pnpm",
      "s06",
      "--allow",
      "Bash(node test.js)",
      "Push this branch",
    ]);
  });
});

describe("lessonDiffProblems", () => {
  const dir = mkdtempSync(join(tmpdir(), "lesson-diff-"));
  const [before, after] = [join(dir, "before.ts"), join(dir, "after.ts")];
  writeFileSync(before, "/**\n * s01\n */\nconst a = 1;\nconst b = 2;\n");
  writeFileSync(after, "/**\n * s02\n */\nconst a = 1;\nconst b = 3;\n");
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("finds nothing wrong with the real change, the header comments left out", () => {
    expect(lessonDiffProblems("@@ -4,2 +4,2 @@\n const a = 1;\n-const b = 2;\n+const b = 3;\n", before, after)).toEqual(
      [],
    );
  });

  it("names a hunk that is not in a file, and a change left out", () => {
    expect(lessonDiffProblems("@@ -4,2 +4,2 @@\n const a = 1;\n-const b = 9;\n", before, after)).toEqual([
      `hunk 1 is not in ${before}:\nconst a = 1;\nconst b = 9;`,
      "left out: -const b = 2;",
      "left out: +const b = 3;",
    ]);
    expect(hunkCount("--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n@@ -5 +5 @@\n-z\n")).toBe(2);
  });
});
