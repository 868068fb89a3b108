import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeFileTool } from "../../src/tools/write-file.ts";
import { ESCAPES, escapeLayout, SECRET } from "../escape-layout.ts";
import { tempWorkdir } from "../temp-workdir.ts";

function context(cwd: string) {
  return { cwd, signal: new AbortController().signal };
}

describe("write_file", () => {
  it("creates a file, and the directories it needs", async () => {
    const cwd = tempWorkdir();
    const result = await writeFileTool.run({ path: "src/deep/hello.txt", content: "héllo\n" }, context(cwd));
    expect(result).toEqual({ content: "Wrote 7 bytes to src/deep/hello.txt.", isError: false });
    expect(readFileSync(join(cwd, "src/deep/hello.txt"), "utf8")).toBe("héllo\n");
  });

  it("overwrites a file that exists", async () => {
    const { work } = escapeLayout();
    await writeFileTool.run({ path: "notes.txt", content: "new" }, context(work));
    expect(readFileSync(join(work, "notes.txt"), "utf8")).toBe("new");
  });

  it("is not safe to run beside other tools", () => {
    expect(writeFileTool.concurrencySafe).toBe(false);
  });

  it.each(ESCAPES)("refuses %s and writes nothing there", async (_way, pathIn) => {
    const layout = escapeLayout();
    const result = await writeFileTool.run({ path: pathIn(layout), content: "pwned" }, context(layout.work));
    expect(result.content).toMatch(/^Error \[outside_workdir\]: /);
    expect(result.isError).toBe(true);
    expect(readFileSync(join(layout.outside, "secret.txt"), "utf8")).toBe(`${SECRET}\n`);
    expect(readFileSync(join(layout.outside, "dir", "inner.txt"), "utf8")).toBe(`${SECRET} (inner)\n`);
  });

  it("refuses a new file under a symlinked directory", async () => {
    const layout = escapeLayout();
    const result = await writeFileTool.run({ path: "linkdir/new.txt", content: "pwned" }, context(layout.work));
    expect(result.content).toMatch(/^Error \[outside_workdir\]: /);
    expect(existsSync(join(layout.outside, "dir", "new.txt"))).toBe(false);
  });

  it("refuses a new directory under a symlinked directory", async () => {
    const layout = escapeLayout();
    const result = await writeFileTool.run({ path: "linkdir/a/b/new.txt", content: "pwned" }, context(layout.work));
    expect(result.content).toMatch(/^Error \[outside_workdir\]: /);
    expect(existsSync(join(layout.outside, "dir", "a"))).toBe(false);
  });

  it("refuses a link whose target outside does not exist yet, and creates nothing", async () => {
    const layout = escapeLayout();
    const result = await writeFileTool.run({ path: "dangling.txt", content: "pwned" }, context(layout.work));
    expect(result.content).toMatch(/^Error \[outside_workdir\]: /);
    expect(existsSync(join(layout.outside, "missing.txt"))).toBe(false);
  });

  it("overwrites a longer file with a shorter content, leaving nothing of the old one", async () => {
    const cwd = tempWorkdir();
    writeFileSync(join(cwd, "a.txt"), "a long old content\n");
    await writeFileTool.run({ path: "a.txt", content: "new\n" }, context(cwd));
    expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("new\n");
  });

  it.each([
    ["a binary file", "program", Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2]), "binary_file", "is a binary file"],
    [
      "a file that is not UTF-8",
      "latin1.txt",
      Buffer.from("caf\xe9\n", "latin1"),
      "not_utf8",
      "is not valid UTF-8 text",
    ],
  ])(
    "refuses to overwrite %s, says how to replace it on purpose, and keeps it",
    async (_what, path, bytes, code, said) => {
      const cwd = tempWorkdir();
      writeFileSync(join(cwd, path), bytes);
      const result = await writeFileTool.run({ path, content: "text\n" }, context(cwd));
      expect(result).toEqual({
        content:
          `Error [${code}]: ${path} ${said} (${bytes.length} bytes); write_file does not overwrite it; ` +
          `to replace it on purpose, delete it first (bash: rm ${path}).`,
        isError: true,
      });
      expect(readFileSync(join(cwd, path))).toEqual(bytes);
    },
  );

  it("refuses a named pipe at once instead of waiting for a reader", async () => {
    const cwd = tempWorkdir();
    execFileSync("mkfifo", [join(cwd, "pipe")]);
    expect((await writeFileTool.run({ path: "pipe", content: "x" }, context(cwd))).content).toBe(
      "Error [not_a_file]: pipe is a named pipe, not a regular file.",
    );
  });

  it("refuses a directory", async () => {
    const cwd = tempWorkdir();
    mkdirSync(join(cwd, "src"));
    expect((await writeFileTool.run({ path: "src", content: "x" }, context(cwd))).content).toBe(
      "Error [not_a_file]: src is a directory; use glob to list its files.",
    );
  });

  it("writes nothing into .harness/, the harness's own files", async () => {
    const cwd = tempWorkdir();
    const result = await writeFileTool.run({ path: ".harness/settings.json", content: "{}" }, context(cwd));
    expect(result.content).toBe(
      "Error [harness_file]: .harness/settings.json is inside .harness/, the harness's own files",
    );
    expect(existsSync(join(cwd, ".harness"))).toBe(false);
  });
});
