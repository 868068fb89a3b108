import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_MAX_OUTPUT_BYTES } from "@harness/shared";
import { describe, expect, it } from "vitest";
import { globTool, MAX_GLOB_RESULTS } from "../../src/tools/glob.ts";
import { escapeLayout } from "../escape-layout.ts";
import { tempWorkdir } from "../temp-workdir.ts";

function context(cwd: string) {
  return { cwd, signal: new AbortController().signal };
}

/** Write a file and set its modification time to `secondsAgo` before a fixed moment. */
function fileAged(cwd: string, path: string, secondsAgo: number): void {
  const file = join(cwd, path);
  mkdirSync(join(file, ".."), { recursive: true });
  writeFileSync(file, path);
  const when = new Date(Date.UTC(2026, 0, 1) - secondsAgo * 1000);
  utimesSync(file, when, when);
}

describe("glob", () => {
  it("lists matching files newest first, relative to the working directory", async () => {
    const cwd = tempWorkdir();
    fileAged(cwd, "old.ts", 300);
    fileAged(cwd, "src/newest.ts", 10);
    fileAged(cwd, "src/middle.ts", 100);
    fileAged(cwd, "readme.md", 1);
    expect(await globTool.run({ pattern: "**/*.ts" }, context(cwd))).toEqual({
      content: "src/newest.ts\nsrc/middle.ts\nold.ts",
      isError: false,
    });
  });

  it("searches under path, still naming files from the working directory", async () => {
    const cwd = tempWorkdir();
    fileAged(cwd, "src/a.ts", 10);
    fileAged(cwd, "b.ts", 1);
    expect((await globTool.run({ pattern: "*.ts", path: "src" }, context(cwd))).content).toBe("src/a.ts");
  });

  it(`lists at most MAX_GLOB_RESULTS (${MAX_GLOB_RESULTS}) files and says how many more there are`, async () => {
    const cwd = tempWorkdir();
    for (let i = 0; i < MAX_GLOB_RESULTS + 5; i++) fileAged(cwd, `f${String(i).padStart(3, "0")}.txt`, i);
    const lines = (await globTool.run({ pattern: "*.txt" }, context(cwd))).content.split("\n");
    expect(lines).toHaveLength(MAX_GLOB_RESULTS + 1);
    expect(lines[0]).toBe("f000.txt"); // the newest
    expect(lines.at(-1)).toBe("[5 more not shown; narrow the pattern or the path]");
  });

  it("skips .git always, and node_modules when .gitignore says so", async () => {
    const cwd = tempWorkdir();
    fileAged(cwd, "node_modules/pkg/index.js", 1);
    fileAged(cwd, ".git/hooks/x.js", 1);
    fileAged(cwd, "src/app.js", 2);
    expect((await globTool.run({ pattern: "**/*.js" }, context(cwd))).content).toBe(
      "node_modules/pkg/index.js\nsrc/app.js",
    );
    writeFileSync(join(cwd, ".gitignore"), "node_modules/\n");
    expect((await globTool.run({ pattern: "**/*.js" }, context(cwd))).content).toBe("src/app.js");
  });

  it("honours .gitignore as git does: nested files, negations, .git/info/exclude", async () => {
    const cwd = tempWorkdir();
    for (const path of [
      "a.log",
      "keep.log",
      "build/out.js",
      "src/gen.ts",
      "src/app.ts",
      "src/lib/x.tmp",
      "secret.env",
    ]) {
      fileAged(cwd, path, 1);
    }
    writeFileSync(join(cwd, ".gitignore"), "*.log\n!keep.log\nbuild/\n*.tmp\n");
    writeFileSync(join(cwd, "src", ".gitignore"), "gen.ts\n!x.tmp\n");
    mkdirSync(join(cwd, ".git", "info"), { recursive: true });
    writeFileSync(join(cwd, ".git", "info", "exclude"), "secret.env\n");
    const listed = (await globTool.run({ pattern: "**/*" }, context(cwd))).content.split("\n").sort();
    expect(listed).toEqual([".gitignore", "keep.log", "src/.gitignore", "src/app.ts", "src/lib/x.tmp"]);
  });

  it("searches a directory that is ignored when the path names it", async () => {
    const cwd = tempWorkdir();
    fileAged(cwd, "node_modules/pkg/index.js", 1);
    writeFileSync(join(cwd, ".gitignore"), "node_modules\n");
    expect((await globTool.run({ pattern: "**/*.js", path: "node_modules/pkg" }, context(cwd))).content).toBe(
      "node_modules/pkg/index.js",
    );
    expect((await globTool.run({ pattern: "node_modules/pkg/*.js" }, context(cwd))).content).toBe(
      "node_modules/pkg/index.js",
    );
  });

  it("never lists the harness's own files in .harness/, nor searches there", async () => {
    const cwd = tempWorkdir();
    fileAged(cwd, ".harness/settings.json", 1);
    fileAged(cwd, "package.json", 2);
    expect((await globTool.run({ pattern: "**/*.json" }, context(cwd))).content).toBe("package.json");
    expect((await globTool.run({ pattern: ".harness/*" }, context(cwd))).content).toBe("No files match .harness/*.");
    expect((await globTool.run({ pattern: "*", path: ".harness" }, context(cwd))).content).toMatch(
      /^Error \[harness_file\]: /,
    );
  });

  it("never lists a file or directory the context's canRead refuses", async () => {
    const cwd = tempWorkdir();
    fileAged(cwd, ".env", 1);
    fileAged(cwd, "keys/a.json", 2);
    fileAged(cwd, "package.json", 3);
    const canRead = (path: string) => !/\/(\.env|keys)$/.test(path);
    expect((await globTool.run({ pattern: "**/*" }, { ...context(cwd), canRead })).content).toBe("package.json");
  });

  it("caps the result like bash's output when the paths are long", async () => {
    const cwd = tempWorkdir();
    const deep = `${"d".repeat(200)}/${"e".repeat(200)}`;
    for (let i = 0; i < MAX_GLOB_RESULTS; i++)
      fileAged(cwd, `${deep}/${String(i).padStart(3, "0")}${"f".repeat(100)}.txt`, i);
    const { content } = await globTool.run({ pattern: "**/*.txt" }, context(cwd));
    expect(Buffer.byteLength(content)).toBeLessThanOrEqual(DEFAULT_MAX_OUTPUT_BYTES);
    const lines = content.split("\n");
    expect(lines.at(-1)).toBe(
      `[${MAX_GLOB_RESULTS - (lines.length - 1)} more not shown; narrow the pattern or the path]`,
    );
    expect(lines.length - 1).toBeLessThan(MAX_GLOB_RESULTS);
  });

  it("says when nothing matches", async () => {
    const cwd = tempWorkdir();
    expect(await globTool.run({ pattern: "*.rs" }, context(cwd))).toEqual({
      content: "No files match *.rs.",
      isError: false,
    });
  });

  it.each([
    ["a ../ path", "../outside"],
    ["a symlinked directory", "linkdir"],
  ])("refuses to search %s", async (_way, path) => {
    const { work } = escapeLayout();
    const result = await globTool.run({ pattern: "**/*", path }, context(work));
    expect(result.content).toMatch(/^Error \[outside_workdir\]: /);
  });

  it("refuses to search an absolute path elsewhere", async () => {
    const { work, outside } = escapeLayout();
    const result = await globTool.run({ pattern: "*", path: outside }, context(work));
    expect(result.content).toMatch(/^Error \[outside_workdir\]: /);
  });

  it.each(["../outside/*", "/etc/*"])("refuses the pattern %s", async (pattern) => {
    const { work } = escapeLayout();
    expect((await globTool.run({ pattern }, context(work))).content).toMatch(/^Error \[outside_workdir\]: /);
  });

  it("never lists what lies behind a link that points out", async () => {
    const { work } = escapeLayout();
    expect((await globTool.run({ pattern: "**/*" }, context(work))).content).toBe("notes.txt");
    expect((await globTool.run({ pattern: "linkdir/*" }, context(work))).content).toBe("No files match linkdir/*.");
  });

  it("is safe to run beside other tools", () => {
    expect(globTool.concurrencySafe).toBe(true);
  });
});
