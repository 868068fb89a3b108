import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_READ_LIMIT, MAX_LINE_LENGTH, readFileTool } from "../../src/tools/read-file.ts";
import { ESCAPES, escapeLayout, SECRET } from "../escape-layout.ts";
import { tempWorkdir } from "../temp-workdir.ts";

function context(cwd: string) {
  return { cwd, signal: new AbortController().signal };
}

function numbered(count: number): string {
  return Array.from({ length: count }, (_, i) => `line ${i + 1}`).join("\n");
}

describe("read_file", () => {
  it("numbers the lines from 1, a tab after each number", async () => {
    const cwd = tempWorkdir();
    writeFileSync(join(cwd, "a.txt"), "alpha\nbeta\n");
    expect(await readFileTool.run({ path: "a.txt" }, context(cwd))).toEqual({
      content: "1\talpha\n2\tbeta",
      isError: false,
    });
  });

  it("pads the numbers to one width", async () => {
    const cwd = tempWorkdir();
    writeFileSync(join(cwd, "a.txt"), `${numbered(10)}\n`);
    const { content } = await readFileTool.run({ path: "a.txt" }, context(cwd));
    expect(content.split("\n")[0]).toBe(" 1\tline 1");
    expect(content.split("\n").at(-1)).toBe("10\tline 10");
  });

  it("returns the window that offset and limit ask for, and says which lines it is", async () => {
    const cwd = tempWorkdir();
    writeFileSync(join(cwd, "a.txt"), `${numbered(10)}\n`);
    const { content, isError } = await readFileTool.run({ path: "a.txt", offset: 4, limit: 3 }, context(cwd));
    expect(isError).toBe(false);
    expect(content).toBe("4\tline 4\n5\tline 5\n6\tline 6\n[lines 4-6 of 10; pass offset to read more]");
  });

  it(`returns at most DEFAULT_READ_LIMIT (${DEFAULT_READ_LIMIT}) lines when no limit is given`, async () => {
    const cwd = tempWorkdir();
    writeFileSync(join(cwd, "big.txt"), numbered(DEFAULT_READ_LIMIT + 5));
    const lines = (await readFileTool.run({ path: "big.txt" }, context(cwd))).content.split("\n");
    expect(lines).toHaveLength(DEFAULT_READ_LIMIT + 1);
    expect(lines.at(-2)).toBe(`${DEFAULT_READ_LIMIT}\tline ${DEFAULT_READ_LIMIT}`);
    expect(lines.at(-1)).toBe(`[lines 1-${DEFAULT_READ_LIMIT} of ${DEFAULT_READ_LIMIT + 5}; pass offset to read more]`);
  });

  it(`cuts a line longer than MAX_LINE_LENGTH (${MAX_LINE_LENGTH}) characters`, async () => {
    const cwd = tempWorkdir();
    writeFileSync(join(cwd, "wide.txt"), `${"x".repeat(MAX_LINE_LENGTH + 10)}\n`);
    const { content } = await readFileTool.run({ path: "wide.txt" }, context(cwd));
    expect(content).toBe(`1\t${"x".repeat(MAX_LINE_LENGTH)}… [line cut]`);
  });

  it("refuses a binary file", async () => {
    const cwd = tempWorkdir();
    writeFileSync(join(cwd, "image.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02]));
    expect(await readFileTool.run({ path: "image.png" }, context(cwd))).toEqual({
      content: "Error [binary_file]: image.png is a binary file (7 bytes); read_file shows text only.",
      isError: true,
    });
  });

  it("says when the file does not exist, is a directory, or is empty", async () => {
    const cwd = tempWorkdir();
    writeFileSync(join(cwd, "empty.txt"), "");
    const ctx = context(cwd);
    expect((await readFileTool.run({ path: "nope.txt" }, ctx)).content).toBe(
      "Error [not_found]: nope.txt does not exist.",
    );
    expect((await readFileTool.run({ path: "." }, ctx)).content).toMatch(/^Error \[not_found\]: \. is a directory/);
    expect(await readFileTool.run({ path: "empty.txt" }, ctx)).toEqual({
      content: "(empty.txt is empty)",
      isError: false,
    });
  });

  it("refuses an offset past the end", async () => {
    const cwd = tempWorkdir();
    writeFileSync(join(cwd, "a.txt"), "one\ntwo\n");
    expect((await readFileTool.run({ path: "a.txt", offset: 3 }, context(cwd))).content).toBe(
      "Error [invalid_arguments]: offset 3 is past the end (2 lines).",
    );
  });

  it.each(ESCAPES)("refuses %s and shows nothing of it", async (_way, pathIn) => {
    const layout = escapeLayout();
    const result = await readFileTool.run({ path: pathIn(layout) }, context(layout.work));
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/^Error \[outside_workdir\]: /);
    expect(result.content).not.toContain(SECRET);
  });
});
