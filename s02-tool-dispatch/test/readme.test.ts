/**
 * The chapter text cannot drift from the code: every number it states is the code's constant, every
 * ```ts excerpt is found verbatim in the sources, every ```diff hunk is a real piece of the diff
 * between s01's loop and this one, and the tables list what the code has.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_BASH_TIMEOUT_SECONDS, EXIT_CODES, exitCodeFor, usage } from "@harness/shared";
import { codeFences, containsRun, normalisedLines, proseOf, readChapterCli, sourceLines } from "@harness/testkit";
import { describe, expect, it } from "vitest";
import { dispatch, toolMap } from "../src/dispatch.ts";
import { MAX_CONCURRENT_TOOLS } from "../src/run-tool-calls.ts";
import { toApiTool } from "../src/tool.ts";
import { MAX_GLOB_RESULTS } from "../src/tools/glob.ts";
import { MAX_GREP_MATCHES } from "../src/tools/grep.ts";
import { ALL_TOOLS, editFileTool } from "../src/tools/index.ts";
import { DEFAULT_READ_LIMIT, MAX_LINE_LENGTH } from "../src/tools/read-file.ts";

const CHAPTER = join(import.meta.dirname, "..");
const CLI = readChapterCli(CHAPTER);
const REPO = join(CHAPTER, "..");
const READMES = ["README.md", "README.zh.md"] as const;

function readme(name: string): string {
  return readFileSync(join(CHAPTER, name), "utf8");
}

const SOURCES = sourceLines([join(CHAPTER, "src"), join(REPO, "shared", "src")]);

const WORDS: Record<string, number> = { six: 6, eight: 8, 六: 6, 八: 8 };

/** Every number a pattern captures, as digits or as a word. */
function captures(text: string, pattern: RegExp): number[] {
  return [...text.matchAll(pattern)].map((m) => WORDS[m[1]] ?? Number(m[1]));
}

/**
 * The numbers the text states, each with the phrasings (English and Chinese) it is stated in.
 * Every phrasing found must carry the code's value, and each is stated at least once per language.
 */
const NUMBERS: { what: string; value: number; patterns: RegExp[] }[] = [
  {
    what: "the calls run at once (MAX_CONCURRENT_TOOLS)",
    value: MAX_CONCURRENT_TOOLS,
    patterns: [
      /(\d+|eight) at a time/g,
      /(eight|\d+) (?:safe )?calls/g,
      /同时运行 (\d+) 个/g,
      /(八|\d+) ?个(?:安全)?调用/g,
    ],
  },
  {
    what: "the lines read_file returns by default (DEFAULT_READ_LIMIT)",
    value: DEFAULT_READ_LIMIT,
    patterns: [/(\d+) lines/g, /(\d+) 行/g],
  },
  {
    what: "the characters kept of a line (MAX_LINE_LENGTH)",
    value: MAX_LINE_LENGTH,
    patterns: [/(\d+) characters/g, /(\d+) 个字符/g],
  },
  {
    what: "the paths glob returns (MAX_GLOB_RESULTS)",
    value: MAX_GLOB_RESULTS,
    patterns: [/(\d+) paths/g, /(\d+) 个路径/g],
  },
  {
    what: "the matching lines grep returns (MAX_GREP_MATCHES)",
    value: MAX_GREP_MATCHES,
    patterns: [/(\d+) matches/g, /(\d+) 处匹配/g],
  },
  {
    what: "the chapter's tools (ALL_TOOLS)",
    value: ALL_TOOLS.length,
    patterns: [/(?<!\w)(six|\d+) tool(?:s|\b)/g, /(六|\d+) ?个工具/g],
  },
  {
    what: "the bash timeout (DEFAULT_BASH_TIMEOUT_SECONDS)",
    value: DEFAULT_BASH_TIMEOUT_SECONDS,
    patterns: [/(\d+) seconds/g, /(\d+) 秒/g],
  },
  {
    what: "the exit status of an interrupted run (the chapter's exitCodes.aborted)",
    value: CLI.exitCodes.aborted,
    patterns: [/exits? with (\d+)/g, /状态码 (\d+)/g],
  },
];

/** The codes of `ToolErrorCode`, read from its declaration. */
function declaredErrorCodes(): string[] {
  const source = readFileSync(join(CHAPTER, "src", "dispatch.ts"), "utf8");
  const declaration = /export type ToolErrorCode =([\s\S]*?);/.exec(source)?.[1] ?? "";
  return [...declaration.matchAll(/\| "(\w+)"/g)].map((m) => m[1]);
}

/** A diff hunk's two sides: the lines it removes with its context, and the lines it adds with its context. */
function hunkSides(hunk: string): { before: string[]; after: string[] } {
  const lines = hunk.split("\n").filter((line) => line !== "");
  const side = (keep: string) =>
    normalisedLines(
      lines
        .filter((line) => line[0] === " " || line[0] === keep)
        .map((line) => line.slice(1))
        .join("\n"),
    );
  return { before: side("-"), after: side("+") };
}

describe.each(READMES)("%s", (name) => {
  const text = readme(name);

  it.each(NUMBERS)("states $what as the code's value", ({ value, patterns }) => {
    const found = patterns.flatMap((pattern) => captures(proseOf(text, { inlineCode: false }), pattern));
    expect(found.length).toBeGreaterThan(0);
    for (const n of found) expect(n).toBe(value);
  });

  it("states no number in its prose that is not one of the code's", () => {
    const allowed = new Set([
      ...NUMBERS.map((n) => n.value),
      ...Object.values(EXIT_CODES),
      ...Object.values(CLI.exitCodes),
    ]);
    const numbers = [...proseOf(text, { inlineCode: false }).matchAll(/(?<![\w.])\d+(?:\.\d+)?(?![\w.])/g)].map((m) =>
      Number(m[0]),
    );
    expect(numbers.filter((n) => !allowed.has(n))).toEqual([]);
  });

  it("lists each exit status as the CLI maps it", () => {
    const rows = [...text.matchAll(/^\|\s*(\d+)\s*\|\s*(.+?)\s*\|$/gm)];
    expect(rows.map((row) => Number(row[1]))).toEqual([0, 2, 3, 1, 130]);
    for (const [, code, meaning] of rows) {
      const named = /^`(\w+)`/.exec(meaning)?.[1] ?? "error";
      expect(exitCodeFor(named, CLI.exitCodes), meaning).toBe(Number(code));
    }
  });

  it("shows the CLI's own --help text", () => {
    expect(codeFences(text, "text")).toContain(`${usage(CLI.command, CLI.summary, [], CLI.exitCodes)}\n`);
  });

  it("quotes every ts excerpt verbatim from the sources", () => {
    const excerpts = codeFences(text, "ts");
    expect(excerpts.length).toBeGreaterThanOrEqual(8);
    for (const excerpt of excerpts) {
      const where = SOURCES.filter((source) => containsRun(source.lines, normalisedLines(excerpt)));
      expect(where.length, `not found in the sources:\n${excerpt}`).toBeGreaterThan(0);
    }
  });

  it("shows diff hunks that are real: s01's loop on one side, this chapter's on the other", () => {
    const loop = (chapter: string) =>
      normalisedLines(readFileSync(join(REPO, chapter, "src", "agent-loop.ts"), "utf8"));
    const [s01, s02] = [loop("s01-agent-loop"), loop("s02-tool-dispatch")];
    const [diff] = codeFences(text, "diff");
    const hunks = diff.split(/^@@.*$/m).filter((h) => h.trim() !== "");
    expect(hunks.length).toBe(4);
    for (const hunk of hunks) {
      const { before, after } = hunkSides(hunk);
      expect(containsRun(s01, before), `not in s01's loop:\n${before.join("\n")}`).toBe(true);
      expect(containsRun(s02, after), `not in s02's loop:\n${after.join("\n")}`).toBe(true);
    }
  });

  it("shows edit_file's input schema exactly as toApiTool makes it", () => {
    const [json] = codeFences(text, "json");
    expect(JSON.parse(json)).toEqual(toApiTool(editFileTool).input_schema);
  });

  it("shows the invalid_arguments error dispatch really gives", async () => {
    const shown = codeFences(text, "text").find((block) => block.startsWith("Error [invalid_arguments]"));
    const result = await dispatch(
      toolMap(ALL_TOOLS),
      { id: "toolu_1", name: "edit_file", input: { path: "notes.txt", old_string: "" } },
      { cwd: CHAPTER, signal: new AbortController().signal },
    );
    expect(shown).toBe(`${result.content}\n`);
  });

  it("lists exactly the error codes the code declares", () => {
    const tables = [...text.matchAll(/^(?:\|.*\n)+/gm)].map((m) => m[0]);
    const table = tables.find((t) => /^\|\s*(?:code|代码)\s*\|/.test(t)) ?? "";
    const listed = [...table.matchAll(/^\| `(\w+)`/gm)].map((m) => m[1]);
    expect(listed.sort()).toEqual(declaredErrorCodes().sort());
    expect(listed.length).toBeGreaterThanOrEqual(10);
  });
});

describe("the chapter text", () => {
  it("gives the same code in English and Chinese", () => {
    const [en, zh] = READMES.map(readme);
    const strip = (block: string) => block.replace(/\s+#.*$/gm, "").replace(/^@@.*$/gm, "@@"); // comments are translated
    for (const lang of ["ts", "json", "text", "sh", "diff"]) {
      expect(codeFences(zh, lang).map(strip), lang).toEqual(codeFences(en, lang).map(strip));
    }
  });
});
