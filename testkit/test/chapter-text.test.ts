import { describe, expect, it } from "vitest";
import { codeFences, containsRun, normalisedLines, proseOf } from "../src/chapter-text.ts";

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
