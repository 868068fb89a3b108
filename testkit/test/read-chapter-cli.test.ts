import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../src/cli-runner.ts";
import { readChapterCli } from "../src/read-chapter-cli.ts";

const root = mkdtempSync(join(tmpdir(), "read-chapter-cli-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function chapterWith(main: string, files: Record<string, string> = {}, under = root): string {
  const dir = mkdtempSync(join(under, "s00-"));
  mkdirSync(join(dir, "src"));
  writeFileSync(join(dir, "src", "main.ts"), main);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, "src", path, ".."), { recursive: true });
    writeFileSync(join(dir, "src", path), text);
  }
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

  it("reads a table main.ts names, defined in the chapter's own source", () => {
    const dir = chapterWith(
      'export const chapter = {\n  command: "s03",\n  summary: "streams",\n  exitCodes: ABORTABLE_EXIT_CODES,\n};\n',
      { "abortable-stop-reason.ts": "export const ABORTABLE_EXIT_CODES = { aborted: 130 } as const;\n" },
    );
    expect(readChapterCli(dir).exitCodes).toEqual({ aborted: 130 });
  });

  it("follows a named table to an earlier chapter, and through its spreads", () => {
    const repo = mkdtempSync(join(root, "repo-"));
    chapterWith(
      'const c = { command: "s03", summary: "streams" };',
      {
        "abortable-stop-reason.ts": "export const ABORTABLE_EXIT_CODES = { aborted: 130 } as const;\n",
      },
      repo,
    );
    chapterWith(
      'const c = { command: "s06", summary: "hooks" };',
      {
        "hook-stop-reason.ts":
          "export const HOOK_EXIT_CODES = { ...ABORTABLE_EXIT_CODES, prompt_blocked: 4 } as const;\n",
      },
      repo,
    );
    const dir = chapterWith(
      'const c = {\n  command: "s08",\n  summary: "compaction",\n  exitCodes: COMPACTION_EXIT_CODES,\n};\n',
      {
        "compaction/compaction-stop-reason.ts":
          "export const COMPACTION_EXIT_CODES: Readonly<Record<string, number>> = {\n  ...HOOK_EXIT_CODES,\n  context_overflow: 5,\n};\n",
      },
      repo,
    );
    expect(readChapterCli(dir).exitCodes).toEqual({ aborted: 130, prompt_blocked: 4, context_overflow: 5 });
  });

  it("says so when main.ts names a table no chapter defines", () => {
    const dir = chapterWith('const c = { command: "s04", summary: "traces", exitCodes: NO_SUCH_CODES };');
    expect(() => readChapterCli(dir)).toThrow(/names the exit table NO_SUCH_CODES, which no chapter's source defines/);
  });

  it("reads every chapter's exit table as its main.ts builds it", () => {
    const declared = Object.fromEntries(
      ["s01-agent-loop", "s03-streaming", "s06-hooks", "s08-compaction"].map((name) => [
        name,
        readChapterCli(join(REPO_ROOT, name)).exitCodes,
      ]),
    );
    expect(declared).toEqual({
      "s01-agent-loop": {},
      "s03-streaming": { aborted: 130 },
      "s06-hooks": { aborted: 130, prompt_blocked: 4 },
      "s08-compaction": { aborted: 130, prompt_blocked: 4, context_overflow: 5 },
    });
  });

  it("says so when main.ts declares no command", () => {
    expect(() => readChapterCli(chapterWith("process.exit(0);"))).toThrow(/declares no command and summary/);
  });
});
