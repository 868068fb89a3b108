/**
 * The loop diff's measure: hunks read from git's -U0 diff, a hunk's changed lines as the larger
 * of its two sides, and comment and import lines read from each file's syntax.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { lineKinds, measureLoopDiff, parseHunks } from "../src/loop-diff.ts";

describe("parseHunks", () => {
  it("reads each hunk's removed and added lines, a missing count as one", () => {
    const diff = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n@@ -3,2 +2,0 @@ f\n-c\n-d\n@@ -9,0 +8,3 @@\n+e\n+f\n+g\n";
    expect(parseHunks(diff)).toEqual([
      { removed: [1], added: [1] },
      { removed: [3, 4], added: [] },
      { removed: [], added: [8, 9, 10] },
    ]);
  });
});

describe("lineKinds", () => {
  const source = [
    "/** The header. */", // 1 comment
    "import {", // 2 import
    "  a,", // 3 import
    '} from "./a.ts";', // 4 import
    'import type { B } from "./b.ts";', // 5 import
    "", // 6 blank: neither
    "/**", // 7 comment
    " * A doc comment.", // 8 comment
    " */", // 9 comment
    "export function f(b: B): number {", // 10 code
    "  // why", // 11 comment
    "  const x = a(b); // code with a comment after it", // 12 code
    '  const url = "http://not-a-comment"; /* a */ /* b */', // 13 code
    "  /* one */ /* two */", // 14 comment
    "  return x;", // 15 code
    "}", // 16 code
  ].join("\n");

  it("counts a line as comment only when all of its content is comment", () => {
    expect([...lineKinds(source).comment].sort((x, y) => x - y)).toEqual([1, 7, 8, 9, 11, 14]);
  });

  it("counts every line of an import declaration as an import line", () => {
    expect([...lineKinds(source).import].sort((x, y) => x - y)).toEqual([2, 3, 4, 5]);
  });
});

describe("measureLoopDiff", () => {
  const dir = mkdtempSync(join(tmpdir(), "loop-diff-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, lines: string[]) => {
    const path = join(dir, name);
    writeFileSync(path, `${lines.join("\n")}\n`);
    return path;
  };

  it("counts a hunk as the larger of its sides, and its comment or import lines the same way", () => {
    const before = file("before.ts", ["/** s01 */", 'import { a } from "./a.ts";', "", "a(1);", "a(2);", "a(3);"]);
    const after = file("after.ts", [
      "/** s02 */", // hunk 1: a line rewritten, a comment line on both sides: 1 changed, 1 comment
      'import { a } from "./a.ts";',
      'import { b } from "./b.ts";', // hunk 2: an import line added: 1, 1
      "",
      "a(1);",
      "b(1);", // hunk 3: three lines for a(2), one of them a comment: 3, 1
      "// then",
      "b(2);",
      "a(3);",
    ]);
    expect(measureLoopDiff(before, after)).toEqual({ hunks: 3, changed: 5, commentOrImport: 3 });
  });

  it("finds nothing in a file compared with itself", () => {
    const same = file("same.ts", ["a(1);"]);
    expect(measureLoopDiff(same, same)).toEqual({ hunks: 0, changed: 0, commentOrImport: 0 });
  });
});
