/**
 * The chapter text cannot drift from the code: every number it states is the code's constant,
 * every ```ts excerpt is found verbatim in the sources, and the options block is the CLI's own
 * --help text.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import Anthropic from "@anthropic-ai/sdk";
import {
  DEFAULT_BASH_TIMEOUT_SECONDS,
  DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_MAX_TOKENS,
  DEFAULT_MAX_TURNS,
  DEFAULT_MODEL_TIMEOUT_SECONDS,
  EXIT_CODES,
  exitCodeFor,
  SHOW_ELAPSED_AFTER_MS,
  usage,
} from "@harness/shared";
import { codeFences, containsRun, normalisedLines, proseOf, readChapterCli, sourceLines } from "@harness/testkit";
import { describe, expect, it } from "vitest";

const CHAPTER = join(dirname(fileURLToPath(import.meta.url)), "..");
const CLI = readChapterCli(CHAPTER);
const SOURCE_DIRS = [join(CHAPTER, "src"), join(CHAPTER, "..", "shared", "src")];
const READMES = ["README.md", "README.zh.md"] as const;
const SDK_MAX_RETRIES = new Anthropic({ apiKey: "unused" }).maxRetries;

function readme(name: string): string {
  return readFileSync(join(CHAPTER, name), "utf8");
}

const SOURCES = sourceLines(SOURCE_DIRS);

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
    patterns: [/(\d+)\s*(?:s|秒)[,，]\s*`--bash-timeout`/g],
  },
  {
    what: "the model timeout in seconds",
    value: DEFAULT_MODEL_TIMEOUT_SECONDS,
    patterns: [/(\d+)\s*(?:s|秒)[,，]\s*`--model-timeout`/g],
  },
  {
    what: "the wait after which the spinner counts seconds",
    value: SHOW_ELAPSED_AFTER_MS / 1000,
    patterns: [/(?:passes|超过)\s*(\d+)\s*(?:s|秒)/g],
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
    const found = patterns.flatMap((pattern) => captures(proseOf(text), pattern));
    expect(found.length).toBeGreaterThan(0);
    for (const n of found) expect(n).toBe(value);
  });

  it("states no number of seconds but those above", () => {
    const known = [DEFAULT_BASH_TIMEOUT_SECONDS, DEFAULT_MODEL_TIMEOUT_SECONDS, SHOW_ELAPSED_AFTER_MS / 1000];
    const found = captures(proseOf(text), /(\d+)\s*(?:s|seconds?|秒)(?![A-Za-z0-9])/g);
    expect(found.length).toBeGreaterThan(0);
    for (const n of found) expect(known).toContain(n);
  });

  it("shows the model timeout's default in its sample error line", () => {
    const samples = codeFences(text, "text").join("\n");
    const shown = captures(samples, /within (\d+) s$/gm);
    expect(shown).toEqual([DEFAULT_MODEL_TIMEOUT_SECONDS]);
  });

  it("lists each exit status as the CLI maps it", () => {
    const rows = [...proseOf(text).matchAll(/^\|\s*(\d+)\s*\|\s*(.+?)\s*\|$/gm)];
    expect(rows.map((row) => Number(row[1]))).toEqual([0, 2, 3, 1, 130]);
    for (const [, code, meaning] of rows) {
      const named = /^`(\w+)`/.exec(meaning)?.[1];
      const reason = named ?? (/interrupt|中断/.test(meaning) ? "interrupted" : "error");
      expect(exitCodeFor(reason, CLI.exitCodes), meaning).toBe(Number(code));
    }
    // the table is the contract's, row for row: s01 adds no stop reason of its own
    expect(CLI.exitCodes).toEqual({});
    expect(rows.length).toBe(Object.keys(EXIT_CODES).length);
  });

  it("shows the CLI's own --help text", () => {
    expect(codeFences(text, "text")).toContain(`${usage(CLI.command, CLI.summary, [], CLI.exitCodes)}\n`);
  });

  it("quotes every ts excerpt verbatim from the sources", () => {
    const excerpts = codeFences(text, "ts");
    expect(excerpts.length).toBeGreaterThanOrEqual(5);
    for (const excerpt of excerpts) {
      const lines = normalisedLines(excerpt);
      const where = SOURCES.filter((source) => containsRun(source.lines, lines)).map((s) => s.file);
      expect(where, `not found in the sources:\n${excerpt}`).not.toEqual([]);
    }
  });

  it("shows an AgentLoopResult with exactly the result's fields", () => {
    const [json] = codeFences(text, "json");
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
      expect(codeFences(zh, lang).map(strip), lang).toEqual(codeFences(en, lang).map(strip));
    }
  });
});
