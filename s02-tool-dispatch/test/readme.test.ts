/**
 * The chapter text cannot drift from the code: the chapter-text suite (every ```ts excerpt in the
 * sources, the whole loop the source's, the ```diff of s01's loop against this one real and whole,
 * the help and the exit table the CLI's, the same code in both languages); then this chapter's
 * own: every number it states is the code's constant, the tables list what the code has, and every
 * sample run is the output of that command run again offline.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { EXIT_CODES, exitCodeFor, usage } from "@harness/cli";
import { DEFAULT_BASH_TIMEOUT_SECONDS, DEFAULT_MAX_OUTPUT_BYTES } from "@harness/shared";
import { chapterTextSuite, codeFences, proseOf, runSamplesInOrder, shellBlocks } from "@harness/testkit";
import { describe, expect, it } from "vitest";
import { chapter as s01Chapter } from "../../s01-agent-loop/src/main.ts";
import { dispatch, toolMap } from "../src/dispatch.ts";
import { chapter } from "../src/main.ts";
import { MAX_CONCURRENT_TOOLS } from "../src/run-tool-calls.ts";
import { toApiTool } from "../src/tool.ts";
import { MAX_GLOB_RESULTS } from "../src/tools/glob.ts";
import { MAX_GREP_MATCHES } from "../src/tools/grep.ts";
import { ALL_TOOLS, editFileTool } from "../src/tools/index.ts";
import { DEFAULT_READ_LIMIT, MAX_LINE_LENGTH } from "../src/tools/read-file.ts";
import { exercises } from "./exercises.ts";

const CHAPTER = join(import.meta.dirname, "..");
/** What the chapter's CLI declares: its name, its summary, the exit statuses of its own stop reasons. */
const CLI = { command: chapter.command, summary: chapter.summary, exitCodes: { ...chapter.exitCodes } };
const REPO = join(CHAPTER, "..");
const READMES = ["README.md", "README.zh.md"] as const;

function readme(name: string): string {
  return readFileSync(join(CHAPTER, name), "utf8");
}

/** A text's prose for the number checks: outside code, without the reading-time line (measures of the text, not the code's numbers). */
function numberedProse(text: string): string {
  return proseOf(text, { inlineCode: false }).replace(/^\*\*(?:Reading:|阅读：)\*\*.*$/m, "");
}

const WORDS: Record<string, number> = { six: 6, eight: 8, 六: 6, 八: 8 };

/** Every number a pattern captures, as digits (thousands separated by commas or not) or as a word. */
function captures(text: string, pattern: RegExp): number[] {
  return [...text.matchAll(pattern)].map((m) => WORDS[m[1]] ?? Number(m[1].replaceAll(",", "")));
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
    what: "the cap on a result (DEFAULT_MAX_OUTPUT_BYTES)",
    value: DEFAULT_MAX_OUTPUT_BYTES,
    patterns: [/(\d[\d,]*) bytes/g, /(\d[\d,]*) 字节/g],
  },
];

/** The codes of `ToolErrorCode`, read from its declaration. */
function declaredErrorCodes(): string[] {
  const source = readFileSync(join(CHAPTER, "src", "dispatch.ts"), "utf8");
  const declaration = /export type ToolErrorCode =([\s\S]*?);/.exec(source)?.[1] ?? "";
  return [...declaration.matchAll(/\| "(\w+)"/g)].map((m) => m[1]);
}

const S01_LOOP = join(REPO, "s01-agent-loop", "src", "agent-loop.ts");
const S02_LOOP = join(CHAPTER, "src", "agent-loop.ts");

chapterTextSuite({
  chapter: CHAPTER,
  sources: [join(CHAPTER, "src"), join(REPO, "shared", "src"), join(REPO, "cli", "src")],
  excerpts: 8,
  stub: exercises.find((exercise) => exercise.kind === "build")?.replace,
  wholeLoop: {},
  diffs: [{ label: "s01's loop against this one", block: 0, hunks: 5, from: S01_LOOP, to: S02_LOOP }],
  cli: {
    chapter,
    previous: s01Chapter,
    usage,
    exitCodeFor,
  },
});

describe.each(READMES)("%s", (name) => {
  const text = readme(name);

  it.each(NUMBERS)("states $what as the code's value", ({ value, patterns }) => {
    const found = patterns.flatMap((pattern) => captures(numberedProse(text), pattern));
    expect(found.length).toBeGreaterThan(0);
    for (const n of found) expect(n).toBe(value);
  });

  it("states no number in its prose that is not one of the code's", () => {
    const allowed = new Set([
      ...NUMBERS.map((n) => n.value),
      ...Object.values(EXIT_CODES),
      ...Object.values(CLI.exitCodes),
    ]);
    const numbers = [...numberedProse(text).matchAll(/(?<![\w.,])(?:\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?![\w.])/g)].map(
      (m) => Number(m[0].replaceAll(",", "")),
    );
    expect(numbers.filter((n) => !allowed.has(n))).toEqual([]);
  });

  it("adds no option and no exit code, as it says, and links the options page for s01's", () => {
    // the text shows no help and no exit table: the CLI's are s01's, the contract's
    expect(CLI.exitCodes).toEqual({});
    expect(chapter.flags ?? []).toEqual([]);
    expect(usage(CLI.command, CLI.summary, [], CLI.exitCodes)).toContain("--max-turns N");
    expect(text).toContain(name === "README.md" ? "](../docs/options.md)" : "](../docs/options.zh.md)");
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

/**
 * The sample runs, through testkit's `runSamplesInOrder` as a reader runs them: the setup block,
 * then every ```sh block of `pnpm sNN --offline ...` commands, its ```text block its stdout (the
 * last, two prompts, shows none: it must run), in the text's order, from the repository root, in one copy of the sample directory
 * and one home. What is normalised: the directory's path (the copy's has the same length, as the
 * scripted model estimates tokens from the request's size and the system prompt names the
 * directory), and the order in which the results of calls run at once land.
 */
describe("the sample runs in README.md", () => {
  const text = readme("README.md");
  const SAMPLE_DIR = "/tmp/s02-sample";
  const blocks = shellBlocks(text);
  // the setup, and every offline run; the two prompts shown without their output run last
  const samples = blocks.filter(
    ({ command }) =>
      command.startsWith(`mkdir -p ${SAMPLE_DIR}\n`) || /^(pnpm s\d\d --offline [^\n]*\n?)+$/.test(command),
  );

  it("has a setup block and the samples: s01's failure, then s02's runs", () => {
    expect(samples[0]).toEqual(blocks[0]);
    expect(samples.map((s) => s.command.split(" ")[1])).toEqual(["-p", "s01", "s02", "s02", "s02", "s02", "s02"]);
    expect(samples.at(-1)?.command.split("\n")).toHaveLength(2);
  });

  it("shows what each prints, run in order in one directory and one home", { timeout: 120_000 }, () => {
    const runs = runSamplesInOrder({ samples, sampleDir: SAMPLE_DIR, setup: "", repoRoot: REPO });
    for (const run of runs) {
      expect(run.status, `${run.command}\n${run.stderr}`).toBe(0);
      if (run.shown.join("") === "") continue; // shown without its output
      expect(landingOrderless(run.printed.join("\n")), run.command).toBe(landingOrderless(run.shown.join("\n")));
    }
  });
});

/**
 * The output with each run of labelled results (`    ← name: input` and the lines under it) in a
 * fixed order: calls that run at once land in any order, and the terminal labels each result.
 */
function landingOrderless(output: string): string {
  const lines = output.split("\n");
  const out: string[] = [];
  for (let i = 0; i < lines.length; ) {
    if (!lines[i].startsWith("    ← ")) {
      out.push(lines[i++]);
      continue;
    }
    const groups: string[] = [];
    while (i < lines.length && lines[i].startsWith("    ← ")) {
      const group = [lines[i++]];
      while (i < lines.length && lines[i].startsWith("    ") && !lines[i].startsWith("    ← ")) group.push(lines[i++]);
      groups.push(group.join("\n"));
    }
    out.push(...groups.sort());
  }
  return out.join("\n");
}
