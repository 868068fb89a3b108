import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { grepTool, MAX_GREP_MATCHES } from "../../src/tools/grep.ts";
import { escapeLayout, SECRET } from "../escape-layout.ts";
import { tempWorkdir } from "../temp-workdir.ts";

function context(cwd: string) {
  return { cwd, signal: new AbortController().signal };
}

function files(entries: Record<string, string | Buffer>): string {
  const cwd = tempWorkdir();
  for (const [path, content] of Object.entries(entries)) {
    mkdirSync(join(cwd, path, ".."), { recursive: true });
    writeFileSync(join(cwd, path), content);
  }
  return cwd;
}

describe("grep", () => {
  it("returns each matching line as file:line: text", async () => {
    const cwd = files({ "src/a.ts": "const a = 1;\n// TODO: test\n", "b.md": "# TODO\nnothing\n" });
    expect(await grepTool.run({ pattern: "TODO" }, context(cwd))).toEqual({
      content: "b.md:1: # TODO\nsrc/a.ts:2: // TODO: test",
      isError: false,
    });
  });

  it("searches one file, or only the files include names, and can ignore case", async () => {
    const cwd = files({ "a.ts": "todo here\n", "b.js": "TODO there\n" });
    const ctx = context(cwd);
    expect((await grepTool.run({ pattern: "TODO", path: "b.js" }, ctx)).content).toBe("b.js:1: TODO there");
    expect((await grepTool.run({ pattern: "todo", include: "*.ts" }, ctx)).content).toBe("a.ts:1: todo here");
    expect((await grepTool.run({ pattern: "todo", ignore_case: true }, ctx)).content).toBe(
      "a.ts:1: todo here\nb.js:1: TODO there",
    );
  });

  it(`returns at most MAX_GREP_MATCHES (${MAX_GREP_MATCHES}) lines and says how many more matched`, async () => {
    const cwd = files({ "many.txt": Array.from({ length: MAX_GREP_MATCHES + 7 }, (_, i) => `hit ${i}`).join("\n") });
    const lines = (await grepTool.run({ pattern: "hit" }, context(cwd))).content.split("\n");
    expect(lines).toHaveLength(MAX_GREP_MATCHES + 1);
    expect(lines[0]).toBe("many.txt:1: hit 0");
    expect(lines.at(-1)).toBe("[7 more matches not shown; narrow the search]");
  });

  it("answers an invalid regular expression with an invalid_arguments error", async () => {
    const cwd = files({ "a.txt": "x\n" });
    const result = await grepTool.run({ pattern: "(unclosed" }, context(cwd));
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/^Error \[invalid_arguments\]: pattern: Invalid regular expression/);
  });

  it("skips binary files, node_modules and .git", async () => {
    const cwd = files({
      "bin.dat": Buffer.concat([Buffer.from("TODO"), Buffer.from([0, 1, 2])]),
      "node_modules/x/i.js": "TODO\n",
      ".git/config": "TODO\n",
      "src/ok.js": "TODO\n",
    });
    expect((await grepTool.run({ pattern: "TODO" }, context(cwd))).content).toBe("src/ok.js:1: TODO");
  });

  it("says when nothing matches, and when the path does not exist", async () => {
    const cwd = files({ "a.txt": "x\n" });
    expect((await grepTool.run({ pattern: "zzz" }, context(cwd))).content).toBe("No lines match /zzz/.");
    expect((await grepTool.run({ pattern: "x", path: "nope" }, context(cwd))).content).toBe(
      "Error [not_found]: nope does not exist.",
    );
  });

  it.each([
    ["a ../ path", "../outside"],
    ["a symlinked file", "link.txt"],
    ["a symlinked directory", "linkdir"],
  ])("refuses to search %s", async (_way, path) => {
    const { work } = escapeLayout();
    const result = await grepTool.run({ pattern: "secret", path }, context(work));
    expect(result.content).toMatch(/^Error \[outside_workdir\]: /);
    expect(result.content).not.toContain(SECRET);
  });

  it("refuses to search an absolute path elsewhere", async () => {
    const { work, outside } = escapeLayout();
    const result = await grepTool.run({ pattern: "secret", path: outside }, context(work));
    expect(result.content).toMatch(/^Error \[outside_workdir\]: /);
  });

  it("never reads through a link that points out, nor an include that leads out", async () => {
    const { work } = escapeLayout();
    const ctx = context(work);
    for (const include of ["**/*", "../outside/**", "linkdir/*", "{../outside/*,x}"]) {
      const result = await grepTool.run({ pattern: "secret", include }, ctx);
      expect(result.content, include).not.toContain(SECRET);
    }
  });

  it("is safe to run beside other tools", () => {
    expect(grepTool.concurrencySafe).toBe(true);
  });
});
