/**
 * The chapter text cannot drift from the code: the chapter-text suite (every ```ts excerpt in the
 * sources, the whole loop the source's, the ```diff of s01's loop against this one real and whole,
 * the help and the exit table the CLI's, the same code in both languages); then this chapter's
 * own: every number it states is the code's constant, the tables list what the code has, and every
 * sample run is the output of that command run again offline.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { EXIT_CODES, exitCodeFor, usage } from "@harness/cli";
import { DEFAULT_BASH_TIMEOUT_SECONDS, DEFAULT_MAX_OUTPUT_BYTES } from "@harness/shared";
import { type ChapterMain, chapterTextSuite, codeFences, mainOfScript, proseOf, runInProcess } from "@harness/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { chapter as s01Chapter, main as s01Main } from "../../s01-agent-loop/src/main.ts";
import { dispatch, toolMap } from "../src/dispatch.ts";
import { chapter, main } from "../src/main.ts";
import { MAX_CONCURRENT_TOOLS } from "../src/run-tool-calls.ts";
import { toApiTool } from "../src/tool.ts";
import { MAX_GLOB_RESULTS } from "../src/tools/glob.ts";
import { MAX_GREP_MATCHES } from "../src/tools/grep.ts";
import { ALL_TOOLS, editFileTool } from "../src/tools/index.ts";
import { DEFAULT_READ_LIMIT, MAX_LINE_LENGTH } from "../src/tools/read-file.ts";

const CHAPTER = join(import.meta.dirname, "..");
/** What the chapter's CLI declares: its name, its summary, the exit statuses of its own stop reasons. */
const CLI = { command: chapter.command, summary: chapter.summary, exitCodes: { ...chapter.exitCodes } };
const REPO = join(CHAPTER, "..");
const READMES = ["README.md", "README.zh.md"] as const;

function readme(name: string): string {
  return readFileSync(join(CHAPTER, name), "utf8");
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
  wholeLoop: {},
  diffs: [{ label: "s01's loop against this one", block: 0, hunks: 5, from: S01_LOOP, to: S02_LOOP }],
  cli: {
    chapter,
    previous: s01Chapter,
    usage,
    exitCodeFor,
    exitTable: ["final_answer", "max_turns", "max_tokens", "error", "interrupted"],
  },
});

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
    const numbers = [
      ...proseOf(text, { inlineCode: false }).matchAll(/(?<![\w.,])(?:\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?![\w.])/g),
    ].map((m) => Number(m[0].replaceAll(",", "")));
    expect(numbers.filter((n) => !allowed.has(n))).toEqual([]);
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
 * The sample runs: a ```sh block holding one `pnpm sNN ...` command, followed by a ```text block
 * that starts with `[turn 1]`, is that command's stdout. Each is run again offline, as the root
 * package.json's script runs it, in a fresh copy of the sample directory the text's setup block
 * makes, and compared. What is normalised: the directory's path (the copy's has the same length, as
 * the scripted model estimates tokens from the request's size and the system prompt names the
 * directory), and the order in which the results of calls run at once land.
 */
describe("the sample runs in README.md", () => {
  const text = readme("README.md");
  const SAMPLE_DIR = "/tmp/s02-sample";
  const setup = codeFences(text, "sh").find((block) => block.startsWith(`mkdir -p ${SAMPLE_DIR}\n`));
  const samples = [...text.matchAll(/^```sh\n(pnpm s\d\d [^\n]*)\n```\n\n```text\n(\[turn 1\][\s\S]*?)^```$/gm)].map(
    ([, command, output]) => ({ command, output }),
  );
  const scripts = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")).scripts as Record<string, string>;
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("has a setup block and the samples: s01's failure, then s02's runs", () => {
    expect(setup).toBeDefined();
    expect(samples.map((s) => s.command.split(" ")[1])).toEqual(["s01", "s02", "s02", "s02", "s02"]);
  });

  it.each(samples)("shows what `$command` prints", { timeout: 60_000 }, async ({ command, output }) => {
    const dir = mkdtempSync("/tmp/s02-");
    dirs.push(dir);
    expect(dir.length).toBe(SAMPLE_DIR.length);
    const made = spawnSync("sh", ["-c", (setup ?? "").replaceAll(SAMPLE_DIR, dir)], { encoding: "utf8" });
    expect(made.status, made.stderr).toBe(0);
    const [, chapter, ...rest] = words(command);
    const stdout = await run(
      scripts[chapter],
      rest.map((arg) => arg.replaceAll(SAMPLE_DIR, dir)),
      dir,
    );
    expect(landingOrderless(stdout.replaceAll(dir, SAMPLE_DIR))).toBe(landingOrderless(output));
  });
});

/** A command line split into words, "..." and '...' quoting undone (all the samples use). */
function words(command: string): string[] {
  return [...command.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]);
}

/** The CLIs whose samples run in this process (`mainOfScript` checks the script runs that file). */
const MAINS: Record<string, ChapterMain> = {
  "s01-agent-loop/src/main.ts": s01Main,
  "s02-tool-dispatch/src/main.ts": main,
};

/**
 * Run a root package.json script with `args` from the repository root, with no key, no endpoint
 * and a home of its own: in this process when MAINS has what it runs, else in a child; its stdout.
 */
async function run(script: string, args: string[], home: string): Promise<string> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(ANTHROPIC_|MODEL_ID$|INIT_CWD$|DEBUG$)/.test(name)),
  );
  const main = mainOfScript(script, MAINS);
  if (main) {
    const here = await runInProcess(main, args, { ...env, NO_COLOR: "1", HARNESS_HOME: join(home, ".home") });
    if (here.code !== 0) throw new Error(`exit ${here.code}: ${here.stderr}`);
    return here.stdout;
  }
  const [program, ...scriptArgs] = script.split(" ");
  const child = spawn(program, [...scriptArgs, ...args], {
    cwd: REPO,
    env: { ...env, NO_COLOR: "1", HARNESS_HOME: join(home, ".home") },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) =>
    child.on("close", (code) => (code === 0 ? resolve(stdout) : reject(new Error(`exit ${code}: ${stderr}`)))),
  );
}

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
