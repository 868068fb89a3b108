/**
 * The chapter text cannot drift from the code: the chapter-text suite (every ```ts excerpt in the
 * sources, the whole loop the function in src/agent-loop.ts, the options block the CLI's own
 * --help text, the exit table the CLI's, the same code in both languages); then this chapter's
 * own: every number it states is the code's constant, the ```diff is the real diff from
 * src/one-call.ts, and every offline sample is what a real run of the CLI prints.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import Anthropic from "@anthropic-ai/sdk";
import { DEFAULT_MODEL_TIMEOUT_SECONDS, exitCodeFor, SHOW_ELAPSED_AFTER_MS, usage } from "@harness/cli";
import {
  DEFAULT_BASH_TIMEOUT_SECONDS,
  DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_MAX_TOKENS,
  DEFAULT_MAX_TURNS,
} from "@harness/shared";
import {
  chapterTextSuite,
  cleanUpAfter,
  codeFences,
  containsRun,
  normalisedLines,
  proseOf,
  runSamplesInOrder,
  shellBlocks,
} from "@harness/testkit";
import { describe, expect, it } from "vitest";
import { chapter } from "../src/main.ts";

const CHAPTER = join(dirname(fileURLToPath(import.meta.url)), "..");
const REPO_ROOT = join(CHAPTER, "..");
const PLAY = "/tmp/s01-play";
const LOOP_FILE = join(CHAPTER, "src", "agent-loop.ts");
const ONE_CALL_FILE = join(CHAPTER, "src", "one-call.ts");
/** What the chapter's CLI declares: its name, its summary, the exit statuses of its own stop reasons. */
const CLI = { command: chapter.command, summary: chapter.summary, exitCodes: { ...chapter.exitCodes } };
const SOURCE_DIRS = [join(CHAPTER, "src"), join(CHAPTER, "..", "shared", "src"), join(CHAPTER, "..", "cli", "src")];
const READMES = ["README.md", "README.zh.md"] as const;
const SDK_MAX_RETRIES = new Anthropic({ apiKey: "unused" }).maxRetries;

function readme(name: string): string {
  return readFileSync(join(CHAPTER, name), "utf8");
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

chapterTextSuite({
  chapter: CHAPTER,
  sources: SOURCE_DIRS,
  excerpts: 5,
  wholeLoop: { docComment: false },
  cli: { chapter, usage, exitCodeFor, exitTable: ["final_answer", "max_turns", "max_tokens", "error", "interrupted"] },
});

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

/** The `+` and `-` lines of a diff, normalised (blank ones dropped), with their sign. */
function changedLines(diff: string): string[] {
  return diff
    .split("\n")
    .filter((line) => /^[+-]/.test(line) && !/^(\+\+\+|---) /.test(line))
    .map((line) => `${line[0]} ${line.slice(1).trim().replace(/\s+/g, " ")}`)
    .filter((line) => line.length > 2);
}

/** A hunk's two sides: the lines it removes with its context, and the lines it adds with its context. */
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

describe.each(READMES)("%s: the diff", (name) => {
  const text = readme(name);

  it("shows the real diff from oneCall to agentLoop: every hunk a piece of both files, every change shown", () => {
    const [diff, ...others] = codeFences(text, "diff");
    expect(others).toEqual([]);
    const hunks = diff.split(/^@@.*$/m).filter((h) => h.trim() !== "");
    expect(hunks.length).toBe(3);
    const [oneCall, loop] = [ONE_CALL_FILE, LOOP_FILE].map((file) => normalisedLines(readFileSync(file, "utf8")));
    for (const hunk of hunks) {
      const { before, after } = hunkSides(hunk);
      expect(containsRun(oneCall, before), `not in src/one-call.ts:\n${before.join("\n")}`).toBe(true);
      expect(containsRun(loop, after), `not in src/agent-loop.ts:\n${after.join("\n")}`).toBe(true);
    }
    // the changes shown are git's, from the function's first line on (the header above it differs too)
    const git = spawnSync("git", ["diff", "--no-index", "-w", "--", ONE_CALL_FILE, LOOP_FILE], { encoding: "utf8" });
    expect(git.status, git.stderr).toBe(1); // 1: the files differ
    const real = changedLines(git.stdout);
    const from = real.indexOf("+ export async function agentLoop(");
    expect(from).toBeGreaterThanOrEqual(0);
    expect(changedLines(diff)).toEqual(real.slice(from + 1));
  });
});

/**
 * The offline samples, run through testkit's `runSamplesInOrder` as a reader runs them: every ```sh
 * block that runs `pnpm s01 --offline`, with the ```text (or ```json) block after it, in the text's
 * order, from the repository root, in one /tmp/s01-play and one home. A fresh git repository on
 * branch main stands in for the root where the commands run (INIT_CWD, as pnpm sets it), so "the
 * current git branch" is main whatever branch this checkout is on. What varies with the root's path
 * is normalised: the token estimates of a run there (the system prompt names the directory).
 */
describe("README.md: the offline samples, run in order", () => {
  const samples = shellBlocks(readme("README.md")).filter(({ command }) => /^pnpm s01 .*--offline/m.test(command));

  it("has the samples this text promises: the problem, the try-it runs and the --json line", () => {
    expect(samples.length).toBeGreaterThanOrEqual(6);
    expect(samples[0].command).toBe('pnpm s01 --offline --max-turns 1 "What is the current git branch?"');
  });

  it("shows what each prints, run in order, and exits as its stop reason says", { timeout: 120_000 }, () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), "s01-readme-root-")));
    cleanUpAfter(() => rmSync(root, { recursive: true, force: true }));
    expect(spawnSync("git", ["init", "-q", "-b", "main"], { cwd: root }).status).toBe(0);
    const env = { INIT_CWD: root, GIT_CEILING_DIRECTORIES: tmpdir() };
    const runs = runSamplesInOrder({ samples, sampleDir: PLAY, setup: "", repoRoot: REPO_ROOT, env });
    for (const [i, run] of runs.entries()) {
      expect(run.stderr, run.command).toMatch(/^Using the offline scripted model \(--offline was given\)/);
      // at the stand-in root the token estimates follow its path's length
      const tokens = (lines: string[]) =>
        run.command.includes("--cwd")
          ? lines
          : lines.map((line) => line.replace(/~\d+ in \/ ~\d+ out/, "~N in / ~N out"));
      if (samples[i].output.startsWith("{")) {
        const result = (json: string) => ({ ...JSON.parse(json), usage: "N" });
        const last = run.printed.filter(Boolean).at(-1) ?? "";
        expect(result(last), run.command).toEqual(result(samples[i].output));
        expect(run.status).toBe(exitCodeFor(JSON.parse(last).stopReason, CLI.exitCodes));
        continue;
      }
      // the problem's sample shows stderr's line too; the others only stdout
      const shown = run.shown[0].startsWith("Using ") ? run.shown.slice(1) : run.shown;
      if (shown !== run.shown) expect(run.stderr.split("\n")[0]).toBe(run.shown[0]);
      expect(tokens(run.printed), run.command).toEqual(tokens(shown));
      const stop = /^── (\w+) ·/m.exec(run.printed.join("\n"))?.[1] ?? "";
      expect(run.status, run.stderr).toBe(exitCodeFor(stop, CLI.exitCodes));
    }
  });
});
