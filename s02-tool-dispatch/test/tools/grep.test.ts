import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_MAX_OUTPUT_BYTES } from "@harness/shared";
import { describe, expect, it } from "vitest";
import { grepTool, MAX_GREP_MATCHES, MAX_SEARCHED_LINE_LENGTH } from "../../src/tools/grep.ts";
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
    expect(lines.at(-1)).toBe("[7 more matches not shown; narrow the search with path or include]");
  });

  it("answers an invalid regular expression with an invalid_arguments error", async () => {
    const cwd = files({ "a.txt": "x\n" });
    const result = await grepTool.run({ pattern: "(unclosed" }, context(cwd));
    expect(result.isError).toBe(true);
    expect(result.content).toBe(
      "Error [invalid_arguments]: pattern: error parsing regexp: missing closing ): `(unclosed` " +
        "(grep takes RE2 syntax: no backreferences or lookaround)",
    );
  });

  it("skips binary files (a NUL byte anywhere), .git, and what .gitignore ignores", async () => {
    const cwd = files({
      "bin.dat": Buffer.concat([Buffer.from("TODO"), Buffer.from([0, 1, 2])]),
      "late.dat": Buffer.concat([Buffer.from("TODO\n".repeat(20_000)), Buffer.from([0])]),
      "node_modules/x/i.js": "TODO\n",
      ".git/config": "TODO\n",
      ".gitignore": "node_modules\n",
      "src/ok.js": "TODO\n",
    });
    expect((await grepTool.run({ pattern: "TODO" }, context(cwd))).content).toBe("src/ok.js:1: TODO");
    expect((await grepTool.run({ pattern: "TODO", path: "bin.dat" }, context(cwd))).content).toBe(
      "No lines match /TODO/.\n[skipped: bin.dat is a binary file.]",
    );
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

  it("answers a pattern that makes a backtracking engine run away, in linear time", async () => {
    // ^(a+)+$ over 40 a's and a "!": about 2^40 steps for JavaScript's RegExp, one pass for RE2
    const cwd = files({ "a.txt": `${"a".repeat(40)}!\n${"a".repeat(40)}\n` });
    expect((await grepTool.run({ pattern: "^(a+)+$" }, context(cwd))).content).toBe(`a.txt:2: ${"a".repeat(40)}`);
  });

  it("refuses a backreference or a lookaround, naming what it cannot run", async () => {
    const cwd = files({ "a.txt": "aa\n" });
    expect((await grepTool.run({ pattern: "(a)\\1" }, context(cwd))).content).toBe(
      "Error [invalid_arguments]: pattern: error parsing regexp: invalid escape sequence: `\\1` " +
        "(grep takes RE2 syntax: no backreferences or lookaround)",
    );
    expect((await grepTool.run({ pattern: "a(?=a)" }, context(cwd))).content).toMatch(
      /^Error \[invalid_arguments\]: pattern: error parsing regexp: invalid or unsupported Perl syntax: `\(\?=`/,
    );
  });

  it("matches include by name at any depth, or by path when it has a slash", async () => {
    const cwd = files({ "top.ts": "hit\n", "src/deep/x.ts": "hit\n", "src/y.js": "hit\n" });
    const ctx = context(cwd);
    expect((await grepTool.run({ pattern: "hit", include: "*.ts" }, ctx)).content).toBe(
      "src/deep/x.ts:1: hit\ntop.ts:1: hit",
    );
    expect((await grepTool.run({ pattern: "hit", include: "src/*" }, ctx)).content).toBe("src/y.js:1: hit");
  });

  it("never searches what .gitignore ignores, nested rules and negations included", async () => {
    const cwd = files({
      ".gitignore": "*.log\n!keep.log\ndist/\n",
      "debug.log": "TODO log\n",
      "keep.log": "TODO kept\n",
      "dist/bundle.js": "TODO built\n",
      "pkg/.gitignore": "generated.ts\n",
      "pkg/generated.ts": "TODO generated\n",
      "pkg/main.ts": "TODO main\n",
    });
    expect((await grepTool.run({ pattern: "TODO" }, context(cwd))).content).toBe(
      "keep.log:1: TODO kept\npkg/main.ts:1: TODO main",
    );
  });

  it("never searches the harness's own files in .harness/", async () => {
    const cwd = files({ ".harness/settings.json": '{"note":"TODO"}\n', "a.ts": "// TODO\n" });
    expect((await grepTool.run({ pattern: "TODO" }, context(cwd))).content).toBe("a.ts:1: // TODO");
    expect((await grepTool.run({ pattern: "TODO", path: ".harness" }, context(cwd))).content).toMatch(
      /^Error \[harness_file\]: /,
    );
  });

  it("never searches a file or directory the context's canRead refuses", async () => {
    const cwd = files({ ".env": "KEY=TODO\n", "keys/a.txt": "TODO key\n", "a.ts": "// TODO\n" });
    const canRead = (path: string) => !/\/(\.env|keys)$/.test(path);
    expect((await grepTool.run({ pattern: "TODO" }, { ...context(cwd), canRead })).content).toBe("a.ts:1: // TODO");
    expect((await grepTool.run({ pattern: "TODO" }, context(cwd))).content).toContain(".env:1: KEY=TODO");
  });

  it("finds a match far into a big file, which it reads a chunk at a time", async () => {
    const cwd = files({ "big.log": `${"nothing here\n".repeat(500_000)}the needle\n` });
    expect((await grepTool.run({ pattern: "needle" }, context(cwd))).content).toBe("big.log:500001: the needle");
  });

  it("names a named pipe it cannot search instead of waiting on it, and a line too long to search", async () => {
    const cwd = files({ "a.txt": "TODO\n", "min.js": `${"x".repeat(MAX_SEARCHED_LINE_LENGTH)}TODO\n` });
    execFileSync("mkfifo", [join(cwd, "pipe")]);
    expect((await grepTool.run({ pattern: "TODO" }, context(cwd))).content).toBe(
      "a.txt:1: TODO\n" +
        `[skipped: min.js line 1 past its first ${MAX_SEARCHED_LINE_LENGTH} characters.]\n` +
        "[skipped: pipe is not a regular file.]",
    );
    expect((await grepTool.run({ pattern: "zzz", path: "pipe" }, context(cwd))).content).toBe(
      "No lines match /zzz/.\n[skipped: pipe is not a regular file.]",
    );
  });

  it("caps the result like bash's output when the lines are wide", async () => {
    const wide = "TODO ".padEnd(300, "字");
    const cwd = files({ "wide.txt": `${wide}\n`.repeat(MAX_GREP_MATCHES) });
    const { content } = await grepTool.run({ pattern: "TODO" }, context(cwd));
    expect(Buffer.byteLength(content)).toBeLessThanOrEqual(DEFAULT_MAX_OUTPUT_BYTES);
    const lines = content.split("\n");
    expect(lines[0]).toBe(`wide.txt:1: ${wide}`);
    const shown = lines.length - 1;
    expect(lines.at(-1)).toBe(
      `[${MAX_GREP_MATCHES - shown} more matches not shown; narrow the search with path or include]`,
    );
  });

  it("matches $ before a CRLF line end, and reads a line that is not UTF-8 with U+FFFD in place", async () => {
    const cwd = files({ "crlf.txt": "one TODO\r\ntwo\r\n", "latin1.txt": Buffer.from("caf\xe9 TODO\n", "latin1") });
    expect((await grepTool.run({ pattern: "TODO$" }, context(cwd))).content).toBe(
      "crlf.txt:1: one TODO\nlatin1.txt:1: caf\uFFFD TODO",
    );
  });

  it("stops when the signal has fired", async () => {
    const cwd = files({ "a.txt": "TODO\n" });
    const result = await grepTool.run({ pattern: "TODO" }, { cwd, signal: AbortSignal.abort() });
    expect(result).toEqual({ content: "Error [interrupted]: the user interrupted the search.", isError: true });
  });
});
