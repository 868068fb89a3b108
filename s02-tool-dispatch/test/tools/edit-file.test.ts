import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
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

  it("changes no byte outside the text it replaces: BOM, CRLF line ends and a missing final newline stay", async () => {
    const cwd = tempWorkdir();
    const before = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("first\r\nthis is a draft\r\nlast é")]);
    writeFileSync(join(cwd, "notes.txt"), before);
    const result = await editFileTool.run(
      { path: "notes.txt", old_string: "draft", new_string: "final" },
      context(cwd),
    );
    expect(result).toEqual({ content: "Edited notes.txt at line 2.", isError: false });
    const after = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("first\r\nthis is a final\r\nlast é")]);
    expect(readFileSync(join(cwd, "notes.txt"))).toEqual(after);
  });

  it("grows and shrinks the file by exactly the difference", async () => {
    const cwd = fileWith("a\nmiddle\nz");
    await editFileTool.run(
      { path: "notes.txt", old_string: "middle", new_string: "a much longer middle" },
      context(cwd),
    );
    expect(readFileSync(join(cwd, "notes.txt"), "utf8")).toBe("a\na much longer middle\nz");
    await editFileTool.run({ path: "notes.txt", old_string: "a much longer middle", new_string: "" }, context(cwd));
    expect(readFileSync(join(cwd, "notes.txt"), "utf8")).toBe("a\n\nz");
  });

  it("refuses a file that is not UTF-8, and leaves every byte of it alone", async () => {
    const cwd = tempWorkdir();
    const latin1 = Buffer.from("caf\xe9: a draft\n", "latin1");
    writeFileSync(join(cwd, "latin1.txt"), latin1);
    const result = await editFileTool.run(
      { path: "latin1.txt", old_string: "draft", new_string: "final" },
      context(cwd),
    );
    expect(result).toEqual({
      content: "Error [not_utf8]: latin1.txt is not valid UTF-8 text (14 bytes); edit_file changes UTF-8 text only.",
      isError: true,
    });
    expect(readFileSync(join(cwd, "latin1.txt"))).toEqual(latin1);
  });

  it("refuses a binary file, however well old_string matches in it", async () => {
    const cwd = tempWorkdir();
    const program = Buffer.concat([Buffer.from("\x7fELF"), Buffer.alloc(16), Buffer.from("draft"), Buffer.alloc(8)]);
    writeFileSync(join(cwd, "program"), program);
    const result = await editFileTool.run({ path: "program", old_string: "draft", new_string: "final" }, context(cwd));
    expect(result.content).toBe(
      `Error [binary_file]: program is a binary file (${program.length} bytes); edit_file changes UTF-8 text only.`,
    );
    expect(readFileSync(join(cwd, "program"))).toEqual(program);
  });

  it("refuses a named pipe at once", async () => {
    const cwd = tempWorkdir();
    execFileSync("mkfifo", [join(cwd, "pipe")]);
    const result = await editFileTool.run({ path: "pipe", old_string: "a", new_string: "b" }, context(cwd));
    expect(result.content).toBe("Error [not_a_file]: pipe is a named pipe, not a regular file.");
  });

  it("refuses the harness's own files in .harness/", async () => {
    const cwd = tempWorkdir();
    mkdirSync(join(cwd, ".harness"));
    writeFileSync(join(cwd, ".harness", "settings.json"), '{"mode":"ask"}\n');
    const edit = { path: ".harness/settings.json", old_string: "ask", new_string: "allow" };
    expect((await editFileTool.run(edit, context(cwd))).content).toMatch(/^Error \[harness_file\]: /);
    expect(readFileSync(join(cwd, ".harness", "settings.json"), "utf8")).toBe('{"mode":"ask"}\n');
  });
});
