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
  codeFences,
  commandWords,
  containsRun,
  normalisedLines,
  proseOf,
  runInProcess,
} from "@harness/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { chapter, main } from "../src/main.ts";

const CHAPTER = join(dirname(fileURLToPath(import.meta.url)), "..");
const REPO_ROOT = join(CHAPTER, "..");
const SCRIPTS = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")).scripts as Record<string, string>;
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
 * The offline samples: a ```sh block that runs `pnpm s01 --offline ...`, followed at once by the
 * ```text (or ```json) block of what it printed. Each is run for real, in order: the lines before
 * the `pnpm s01` line by bash, that line by the chapter's CLI in this process (the root
 * package.json's s01 script runs src/main.ts, whose `main` it is). Where the text runs at the
 * repository root, a fresh git repository on branch main stands in for it (INIT_CWD, as pnpm sets
 * it); /tmp/s01-play is a fresh temporary directory. What varies from run to run is normalised: the token estimates (the
 * system prompt names the working directory, so they follow its length) and that directory.
 */
const SAMPLE = /^```sh\n([\s\S]*?)^```\n\n^```(text|json)\n([\s\S]*?)^```$/gm;
const PLAY = "/tmp/s01-play";
const samples = [...readme("README.md").matchAll(SAMPLE)]
  .filter(([, script]) => /^pnpm s01 .*--offline/m.test(script))
  .map(([, script, lang, output]) => ({ script: script.trimEnd(), lang, output }));

const tempDirs: string[] = [];
afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});
function tempDir(prefix: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  tempDirs.push(dir);
  return dir;
}
let dirs: { root: string; play: string } | undefined;
function sampleDirs(): { root: string; play: string } {
  if (!dirs) {
    const root = tempDir("s01-readme-root-");
    expect(spawnSync("git", ["init", "-q", "-b", "main"], { cwd: root }).status).toBe(0);
    dirs = { root, play: tempDir("s01-readme-play-") };
  }
  return dirs;
}

/** The environment of a sample run: no key, endpoint, model or git variable; git looks no higher than tmpdir. */
function sampleEnv(root: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(ANTHROPIC_|GIT_)/.test(key) || ["MODEL_ID", "DEBUG", "INIT_CWD"].includes(key)) continue;
    env[key] = value;
  }
  return { ...env, INIT_CWD: root, GIT_CEILING_DIRECTORIES: tmpdir(), NO_COLOR: "1" };
}

const normaliseText = (output: string, play: string) =>
  output.replaceAll(play, PLAY).replace(/~\d+ in \/ ~\d+ out/g, "~N in / ~N out");
const normaliseJson = (line: string) => {
  const result = JSON.parse(line);
  return { ...result, usage: { inputTokens: "N", outputTokens: "N" } };
};

describe("README.md: the offline samples", () => {
  it("has the samples this text promises: the problem, the try-it runs and the --json line", () => {
    expect(samples.length).toBeGreaterThanOrEqual(6);
    expect(samples[0].script).toBe('pnpm s01 --offline --max-turns 1 "What is the current git branch?"');
  });

  it.each(samples.map((sample) => [sample.script.split("\n").at(-1), sample] as const))(
    "prints what a real run of `%s` prints",
    async (_, sample) => {
      const { root, play } = sampleDirs();
      const lines = sample.script.replaceAll(PLAY, play).split("\n");
      const before = spawnSync("bash", ["-c", lines.slice(0, -1).join("\n")], { cwd: REPO_ROOT, env: sampleEnv(root) });
      expect(before.status).toBe(0);
      const [pnpm, script, ...args] = commandWords(lines.at(-1) ?? "");
      expect([pnpm, SCRIPTS[script]]).toEqual(["pnpm", "node --import tsx s01-agent-loop/src/main.ts"]);
      const ran = await runInProcess(main, args, sampleEnv(root));
      const run = { status: ran.code, stdout: ran.stdout, stderr: ran.stderr };
      expect(run.stderr).toMatch(/^Using the offline scripted model \(--offline was given\)/);
      if (sample.lang === "json") {
        const last = run.stdout.trimEnd().split("\n").at(-1) ?? "";
        expect(normaliseJson(last)).toEqual(normaliseJson(sample.output));
        expect(run.status).toBe(exitCodeFor(JSON.parse(last).stopReason, CLI.exitCodes));
        return;
      }
      // the first sample shows the line on stderr too; the others only stdout
      const printed = sample.output.startsWith("Using ") ? run.stderr + run.stdout : run.stdout;
      expect(normaliseText(printed, play)).toBe(normaliseText(sample.output, play));
      const stop = /^── (\w+) ·/m.exec(run.stdout)?.[1] ?? "";
      expect(run.status, run.stderr).toBe(exitCodeFor(stop, CLI.exitCodes));
    },
    60_000,
  );
});
