import { existsSync, readFileSync } from "node:fs";
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
});
