import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { editFileTool } from "../../src/tools/edit-file.ts";
import { ESCAPES, escapeLayout, SECRET } from "../escape-layout.ts";
import { tempWorkdir } from "../temp-workdir.ts";

function context(cwd: string) {
  return { cwd, signal: new AbortController().signal };
}

function fileWith(content: string): string {
  const cwd = tempWorkdir();
  writeFileSync(join(cwd, "notes.txt"), content);
  return cwd;
}

describe("edit_file", () => {
  it("replaces the one match and says on which line", async () => {
    const cwd = fileWith("title\nthis is a draft\nend\n");
    const result = await editFileTool.run(
      { path: "notes.txt", old_string: "draft", new_string: "final" },
      context(cwd),
    );
    expect(result).toEqual({ content: "Edited notes.txt at line 2.", isError: false });
    expect(readFileSync(join(cwd, "notes.txt"), "utf8")).toBe("title\nthis is a final\nend\n");
  });

  it("inserts the new text literally, $ signs included", async () => {
    const cwd = fileWith("price: X\n");
    await editFileTool.run({ path: "notes.txt", old_string: "X", new_string: "$& and $1" }, context(cwd));
    expect(readFileSync(join(cwd, "notes.txt"), "utf8")).toBe("price: $& and $1\n");
  });

  it("refuses when old_string matches nothing, and leaves the file alone", async () => {
    const cwd = fileWith("this is a draft\n");
    const result = await editFileTool.run({ path: "notes.txt", old_string: "missing", new_string: "x" }, context(cwd));
    expect(result).toEqual({ content: "Error [no_match]: old_string was not found in notes.txt.", isError: true });
    expect(readFileSync(join(cwd, "notes.txt"), "utf8")).toBe("this is a draft\n");
  });

  it("refuses when old_string matches twice, naming the lines, and leaves the file alone", async () => {
    const cwd = fileWith("draft one\nkeep\ndraft two\n");
    const result = await editFileTool.run({ path: "notes.txt", old_string: "draft", new_string: "x" }, context(cwd));
    expect(result).toEqual({
      content: "Error [several_matches]: old_string matches 2 times in notes.txt (lines 1, 3); include more context.",
      isError: true,
    });
    expect(readFileSync(join(cwd, "notes.txt"), "utf8")).toBe("draft one\nkeep\ndraft two\n");
  });

  it("says when the file does not exist", async () => {
    const cwd = tempWorkdir();
    const result = await editFileTool.run({ path: "nope.txt", old_string: "a", new_string: "b" }, context(cwd));
    expect(result).toEqual({ content: "Error [not_found]: nope.txt does not exist.", isError: true });
  });

  it("is not safe to run beside other tools", () => {
    expect(editFileTool.concurrencySafe).toBe(false);
  });

  it.each(ESCAPES)("refuses %s and changes nothing there", async (_way, pathIn) => {
    const layout = escapeLayout();
    const result = await editFileTool.run(
      { path: pathIn(layout), old_string: "secret", new_string: "pwned" },
      context(layout.work),
    );
    expect(result.content).toMatch(/^Error \[outside_workdir\]: /);
    expect(readFileSync(join(layout.outside, "secret.txt"), "utf8")).toBe(`${SECRET}\n`);
    expect(readFileSync(join(layout.outside, "dir", "inner.txt"), "utf8")).toBe(`${SECRET} (inner)\n`);
  });
});
