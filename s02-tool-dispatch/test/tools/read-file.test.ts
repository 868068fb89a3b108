import { execFileSync } from "node:child_process";
import { linkSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { DEFAULT_MAX_OUTPUT_BYTES } from "@harness/shared";
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
    expect(content).toBe("4\tline 4\n5\tline 5\n6\tline 6\n[lines 4-6 of 10; pass offset 7 to read more]");
  });

  it(`returns at most DEFAULT_READ_LIMIT (${DEFAULT_READ_LIMIT}) lines when no limit is given`, async () => {
    const cwd = tempWorkdir();
    writeFileSync(join(cwd, "big.txt"), numbered(DEFAULT_READ_LIMIT + 5));
    const lines = (await readFileTool.run({ path: "big.txt" }, context(cwd))).content.split("\n");
    expect(lines).toHaveLength(DEFAULT_READ_LIMIT + 1);
    expect(lines.at(-2)).toBe(`${DEFAULT_READ_LIMIT}\tline ${DEFAULT_READ_LIMIT}`);
    expect(lines.at(-1)).toBe(
      `[lines 1-${DEFAULT_READ_LIMIT} of ${DEFAULT_READ_LIMIT + 5}; pass offset ${DEFAULT_READ_LIMIT + 1} to read more]`,
    );
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
      content: "Error [binary_file]: image.png is a binary file (7 bytes); read_file shows UTF-8 text only.",
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
    expect((await readFileTool.run({ path: "." }, ctx)).content).toBe(
      "Error [not_a_file]: . is a directory; use glob to list its files.",
    );
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

  it("says where the last window starts, without asking for more", async () => {
    const cwd = tempWorkdir();
    writeFileSync(join(cwd, "a.txt"), `${numbered(10)}\n`);
    expect((await readFileTool.run({ path: "a.txt", offset: 8 }, context(cwd))).content).toBe(
      " 8\tline 8\n 9\tline 9\n10\tline 10\n[lines 8-10 of 10]",
    );
  });

  it("caps the result like bash's output, and says which offset to ask for next", async () => {
    const cwd = tempWorkdir();
    // 4 MB: 2000 lines of 2000 characters, each line's number at its start
    const line = (n: number) => `${n}:`.padEnd(MAX_LINE_LENGTH, "x");
    writeFileSync(join(cwd, "big.txt"), Array.from({ length: 2000 }, (_, i) => line(i + 1)).join("\n"));
    const first = await readFileTool.run({ path: "big.txt" }, context(cwd));
    expect(first.isError).toBe(false);
    expect(Buffer.byteLength(first.content)).toBeLessThanOrEqual(DEFAULT_MAX_OUTPUT_BYTES);
    const note = first.content.split("\n").at(-1) ?? "";
    const capped = `\\(the result is capped at ${DEFAULT_MAX_OUTPUT_BYTES} bytes\\)`;
    const [, last, next] =
      new RegExp(`^\\[lines 1-(\\d+) of 2000 ${capped}; pass offset (\\d+) to read more\\]$`).exec(note) ?? [];
    expect(Number(last)).toBeGreaterThan(1);
    expect(Number(next)).toBe(Number(last) + 1);
    expect(first.content.split("\n").at(-2)).toBe(`${last}\t${line(Number(last))}`);
    const second = await readFileTool.run({ path: "big.txt", offset: Number(next) }, context(cwd));
    expect(second.content.split("\n")[0]).toBe(`${next}\t${line(Number(next))}`);
  });

  it("refuses a file that is not valid UTF-8", async () => {
    const cwd = tempWorkdir();
    writeFileSync(join(cwd, "latin1.txt"), Buffer.from("caf\xe9 cr\xe8me\n", "latin1"));
    expect(await readFileTool.run({ path: "latin1.txt" }, context(cwd))).toEqual({
      content: "Error [not_utf8]: latin1.txt is not valid UTF-8 text (11 bytes); read_file shows UTF-8 text only.",
      isError: true,
    });
  });

  it("refuses a file with a NUL byte past its first chunk as binary", async () => {
    const cwd = tempWorkdir();
    writeFileSync(join(cwd, "late.bin"), Buffer.concat([Buffer.from("a\n".repeat(100_000)), Buffer.from([0])]));
    expect((await readFileTool.run({ path: "late.bin", limit: 1 }, context(cwd))).content).toMatch(
      /^Error \[binary_file\]: late\.bin is a binary file/,
    );
  });

  it("refuses a named pipe at once instead of waiting for a writer", async () => {
    const cwd = tempWorkdir();
    execFileSync("mkfifo", [join(cwd, "pipe")]);
    expect(await readFileTool.run({ path: "pipe" }, context(cwd))).toEqual({
      content: "Error [not_a_file]: pipe is a named pipe, not a regular file.",
      isError: true,
    });
  });

  it("refuses a socket", async () => {
    const cwd = tempWorkdir();
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(join(cwd, "sock"), resolve));
    try {
      expect((await readFileTool.run({ path: "sock" }, context(cwd))).content).toBe(
        "Error [not_a_file]: sock is a socket, not a regular file.",
      );
    } finally {
      server.close();
    }
  });

  it("stops when the signal has fired", async () => {
    const cwd = tempWorkdir();
    writeFileSync(join(cwd, "a.txt"), "alpha\n");
    const result = await readFileTool.run({ path: "a.txt" }, { cwd, signal: AbortSignal.abort() });
    expect(result).toEqual({ content: "Error [interrupted]: the user interrupted reading a.txt.", isError: true });
  });

  it("refuses the harness's own files in .harness/, also through a link", async () => {
    const cwd = tempWorkdir();
    mkdirSync(join(cwd, ".harness"));
    writeFileSync(join(cwd, ".harness", "settings.json"), "{}\n");
    symlinkSync(join(cwd, ".harness"), join(cwd, "settings-link"));
    for (const path of [".harness/settings.json", "settings-link/settings.json", "sub/../.harness/settings.json"]) {
      const result = await readFileTool.run({ path }, context(cwd));
      expect(result.content, path).toBe(`Error [harness_file]: ${path} is inside .harness/, the harness's own files`);
    }
  });

  it("reads a hard link to a file outside: confinement cannot tell it from a file of its own", async () => {
    const layout = escapeLayout();
    linkSync(join(layout.outside, "secret.txt"), join(layout.work, "hardlink.txt"));
    expect(await readFileTool.run({ path: "hardlink.txt" }, context(layout.work))).toEqual({
      content: `1\t${SECRET}`,
      isError: false,
    });
  });
});
