import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readChapterCli } from "../src/read-chapter-cli.ts";

const root = mkdtempSync(join(tmpdir(), "read-chapter-cli-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function chapterWith(main: string): string {
  const dir = mkdtempSync(join(root, "s00-"));
  mkdirSync(join(dir, "src"));
  writeFileSync(join(dir, "src", "main.ts"), main);
  return dir;
}

describe("readChapterCli", () => {
  it("reads the command, the summary and the chapter's exit statuses", () => {
    const dir = chapterWith(
      'const chapter = {\n  command: "s02",\n  summary: "tools, and a guard",\n  exitCodes: { repeated_tool_call: 2, aborted: 130 },\n};\n',
    );
    expect(readChapterCli(dir)).toEqual({
      command: "s02",
      summary: "tools, and a guard",
      exitCodes: { repeated_tool_call: 2, aborted: 130 },
    });
  });

  it("reads no exit statuses from a chapter that declares none", () => {
    expect(readChapterCli(chapterWith('const c = { command: "s01", summary: "a loop" };')).exitCodes).toEqual({});
  });

  it("says so when main.ts declares no command", () => {
    expect(() => readChapterCli(chapterWith("process.exit(0);"))).toThrow(/declares no command and summary/);
  });
});
