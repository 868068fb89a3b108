/**
 * The chapter text cannot drift from the code: every number it states is the code's constant,
 * every ```ts excerpt is found verbatim in the sources, and the options block is the CLI's own
 * --help text.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import Anthropic from "@anthropic-ai/sdk";
import {
  DEFAULT_MAX_TURNS as CLI_DEFAULT_MAX_TURNS,
  DEFAULT_BASH_TIMEOUT_SECONDS,
  DEFAULT_MAX_OUTPUT_BYTES,
  EXIT_CODES,
  exitCodeFor,
  usage,
} from "@harness/shared";
import { describe, expect, it } from "vitest";
import { DEFAULT_MAX_TOKENS, DEFAULT_MAX_TURNS } from "../src/agent-loop.ts";

const CHAPTER = join(dirname(fileURLToPath(import.meta.url)), "..");
const SOURCE_DIRS = [join(CHAPTER, "src"), join(CHAPTER, "..", "shared", "src")];
const READMES = ["README.md", "README.zh.md"] as const;
const SDK_MAX_RETRIES = new Anthropic({ apiKey: "unused" }).maxRetries;

function readme(name: string): string {
  return readFileSync(join(CHAPTER, name), "utf8");
}

/** The bodies of the fenced blocks with this info string. */
function fences(markdown: string, lang: string): string[] {
  const found: string[] = [];
  for (const match of markdown.matchAll(/^```(\S*)\n([\s\S]*?)^```\s*$/gm)) {
    if (match[1] === lang) found.push(match[2]);
  }
  return found;
}

/** The text outside fenced blocks. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```\s*$/gm, "");
}

/** Lines with their whitespace normalised, blank lines dropped. */
function normalisedLines(text: string): string[] {
  return text
    .split("\n")
    .map((line) => line.trim().replace(/\s+/g, " "))
    .filter((line) => line !== "");
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
    .map((entry) => join(entry.parentPath, entry.name));
}

const SOURCES = SOURCE_DIRS.flatMap(sourceFiles).map((file) => ({
  file,
  lines: normalisedLines(readFileSync(file, "utf8")),
}));

/** True when `excerpt`'s lines are a contiguous run of `lines` (whitespace normalised). */
function containsRun(lines: string[], excerpt: string[]): boolean {
  for (let start = 0; start + excerpt.length <= lines.length; start++) {
    if (excerpt.every((line, i) => lines[start + i] === line)) return true;
  }
  return false;
}

/** Every number a pattern captures (spaces, commas and underscores inside a number removed). */
function captures(text: string, pattern: RegExp): number[] {
  return [...text.matchAll(pattern)].map((m) => Number(m[1].replace(/[\s,_]/g, "")));
}

/**
 * The numbers the text states, each with the phrasings (English and Chinese) it is stated in.
 * Every phrasing found must carry the code's value, and each number must be stated at least once.
 */
const NUMBERS: { what: string; value: number; patterns: RegExp[] }[] = [
  {
    what: "the default turn budget",
    value: DEFAULT_MAX_TURNS,
    patterns: [/(?:turn budget|轮数预算)[^\d\n]{0,12}?(\d+)/g, /DEFAULT_MAX_TURNS` (?:is|是) (\d+)/g],
  },
  {
    what: "max_tokens per call",
    value: DEFAULT_MAX_TOKENS,
    patterns: [/(\d+) (?:output tokens|个输出 token)/g, /DEFAULT_MAX_TOKENS` (?:is|是)[^\d\n]{0,6}?(\d+)/g],
  },
  {
    what: "the bash timeout in seconds",
    value: DEFAULT_BASH_TIMEOUT_SECONDS,
    patterns: [/(\d+)\s*(?:s|seconds?|秒)(?![A-Za-z0-9])/g],
  },
  {
    what: "the output cap in bytes",
    value: DEFAULT_MAX_OUTPUT_BYTES,
    patterns: [/(\d(?:[\d ,_]*\d)?)\s*(?:bytes|字节)/g],
  },
  {
    what: "the SDK's retries",
    value: SDK_MAX_RETRIES,
    patterns: [/(\d+) retries/g, /重试 (\d+) 次/g],
  },
];

describe.each(READMES)("%s", (name) => {
  const text = readme(name);

  it.each(NUMBERS)("states $what as the code's value", ({ value, patterns }) => {
    const found = patterns.flatMap((pattern) => captures(prose(text), pattern));
    expect(found.length).toBeGreaterThan(0);
    for (const n of found) expect(n).toBe(value);
  });

  it("lists each exit status as the CLI maps it", () => {
    const rows = [...prose(text).matchAll(/^\|\s*(\d+)\s*\|\s*(.+?)\s*\|$/gm)];
    expect(rows.map((row) => Number(row[1]))).toEqual([0, 2, 3, 1, 130]);
    for (const [, code, meaning] of rows) {
      const named = /^`(\w+)`/.exec(meaning)?.[1];
      const reason = named ?? (/interrupt|中断/.test(meaning) ? "aborted" : "an error");
      expect(exitCodeFor(reason), meaning).toBe(Number(code));
    }
    // the table holds this chapter's results; later chapters' (repeated_tool_call) are theirs to list
    const ours = ["aborted", "final_answer", "max_tokens", "max_turns"];
    expect(
      Object.keys(EXIT_CODES)
        .filter((r) => ours.includes(r))
        .sort(),
    ).toEqual(ours);
  });

  it("shows the CLI's own --help text", () => {
    const main = readFileSync(join(CHAPTER, "src", "main.ts"), "utf8");
    const [, command, summary] = /command: "(\w+)",\s*summary: "([^"]+)"/.exec(main) ?? [];
    expect(fences(text, "text")).toContain(`${usage(command, summary)}\n`);
  });

  it("quotes every ts excerpt verbatim from the sources", () => {
    const excerpts = fences(text, "ts");
    expect(excerpts.length).toBeGreaterThanOrEqual(5);
    for (const excerpt of excerpts) {
      const lines = normalisedLines(excerpt);
      const where = SOURCES.filter((source) => containsRun(source.lines, lines)).map((s) => s.file);
      expect(where, `not found in the sources:\n${excerpt}`).not.toEqual([]);
    }
  });

  it("shows an AgentLoopResult with exactly the result's fields", () => {
    const [json] = fences(text, "json");
    const result = JSON.parse(json);
    expect(Object.keys(result)).toEqual([
      "stopReason",
      "turns",
      "toolCalls",
      "finalText",
      "providerStopReason",
      "usage",
    ]);
    expect(Object.keys(result.usage)).toEqual(["inputTokens", "outputTokens"]);
  });
});

describe("the chapter text", () => {
  it("gives the same code in English and Chinese", () => {
    const [en, zh] = READMES.map(readme);
    for (const lang of ["ts", "json", "text", "sh"]) {
      const strip = (block: string) => block.replace(/\s+#.*$/gm, ""); // shell comments are translated
      expect(fences(zh, lang).map(strip), lang).toEqual(fences(en, lang).map(strip));
    }
  });

  it("has one default turn budget: the loop's is the CLI's", () => {
    expect(DEFAULT_MAX_TURNS).toBe(CLI_DEFAULT_MAX_TURNS);
  });
});
