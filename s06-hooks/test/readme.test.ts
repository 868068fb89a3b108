/**
 * The chapter text cannot drift from the code: the chapter-text suite (its ts excerpts real, the
 * whole loop the source's, the diff of s05's loop against this one real and whole, the help and
 * the exit table what the CLI declares, the same code in both languages); then this chapter's
 * own: the settings example loads, the names and numbers it states are the code's, and every
 * sample run is that command run again offline, in the text's order.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exitCodeFor, REPO_ROOT, usage } from "@harness/cli";
import { TRACE_FLAGS } from "@harness/s04-tracing";
import { CLAUDE_CODE_TOOL_NAMES, PERMISSION_FLAGS, PROJECT_SETTINGS, TRUST_FILE } from "@harness/s05-permissions";
import { chapterTextSuite, codeFences, runSamplesInOrder, shellBlocks } from "@harness/testkit";
import { describe, expect, it } from "vitest";
import { chapter as s05Chapter } from "../../s05-permissions/src/main.ts";
import { chapter } from "../src/main.ts";
import { HOOK_EVENTS } from "../src/runner/hook-input.ts";
import { DEFAULT_HOOK_TIMEOUT_SECONDS, loadHooks } from "../src/runner/load-hooks.ts";

const CHAPTER = join(REPO_ROOT, "s06-hooks");
const READMES = ["README.md", "README.zh.md"] as const;
const S05_LOOP = join(REPO_ROOT, "s05-permissions", "src", "agent-loop.ts");
const S06_LOOP = join(CHAPTER, "src", "agent-loop.ts");
const text = (name: string) => readFileSync(join(CHAPTER, name), "utf8");

/** Where each text states the code's default timeout, in its own words. */
const TIMEOUT: Record<string, string> = {
  "README.md": `by default ${DEFAULT_HOOK_TIMEOUT_SECONDS} s`,
  "README.zh.md": `默认 ${DEFAULT_HOOK_TIMEOUT_SECONDS} 秒`,
};

chapterTextSuite({
  chapter: CHAPTER,
  excerpts: 5,
  wholeLoop: {},
  diffs: [{ label: "s05's loop against this one", hunks: 6, from: S05_LOOP, to: S06_LOOP }],
  cli: {
    chapter,
    previous: s05Chapter,
    usage,
    exitCodeFor,
    exitTable: ["final_answer", "max_turns", "max_tokens", "prompt_blocked", "aborted", "error"],
  },
});

describe.each(READMES)("%s", (name) => {
  const markdown = text(name);
  it("adds no option of its own, and links the options page for them", () => {
    expect(chapter.flags).toEqual([...TRACE_FLAGS, ...PERMISSION_FLAGS]);
    expect(markdown).toContain(name === "README.md" ? "](../docs/options.md)" : "](../docs/options.zh.md)");
  });

  it("shows settings that load without a problem", () => {
    const [settings] = codeFences(markdown, "json");
    const cwd = mkdtempSync(join(tmpdir(), "readme-settings-"));
    try {
      mkdirSync(join(cwd, ".harness"));
      writeFileSync(join(cwd, PROJECT_SETTINGS), settings);
      const loaded = loadHooks(cwd);
      expect(loaded.problems).toEqual([]);
      expect(loaded.hooks.map((hook) => hook.event)).toEqual(["PreToolUse", "Stop"]);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it("names every event, both spellings of every tool, and the examples that exist", () => {
    for (const event of HOOK_EVENTS) expect(markdown).toContain(`| ${event}`);
    for (const [course, claude] of Object.entries(CLAUDE_CODE_TOOL_NAMES)) {
      expect(markdown).toMatch(new RegExp(`\\| \`${course}\` +\\| \`${claude}\` +\\|`));
    }
    for (const example of readdirSync(join(CHAPTER, "examples"))) {
      expect(markdown).toContain(`\`${example === "settings.json" ? "examples/settings.json" : example}\``);
    }
  });

  it("states the code's default timeout and the trust file's name", () => {
    expect(markdown.replace(/\s*\n\s*/g, " ")).toContain(TIMEOUT[name]);
    expect(markdown).toContain(`$HARNESS_HOME/${TRUST_FILE}`);
  });
});

/**
 * The sample runs, through testkit's `runSamplesInOrder` as a reader runs them: every ```sh block
 * of the text (the problem's setup, s05's edit, the failing test, Try it's line that puts add.js
 * back, a sample per example hook), in its order, from the repository root, in one copy of the
 * sample directory (its path the same length, as the scripted model estimates tokens from the
 * request's size and the system prompt names the directory) and one home. A ```text block after a
 * command is its stdout.
 */
describe("the sample runs in README.md", () => {
  const markdown = text("README.md");
  const SAMPLE_DIR = "/tmp/s06-sample";
  const samples = shellBlocks(markdown);

  it("has a setup block and the samples: s05 missing the failing test, the reset, then a sample per example hook", () => {
    expect(samples[0].command).toMatch(new RegExp(`^mkdir -p ${SAMPLE_DIR}/`));
    expect(samples.map((s) => s.command.split(" ")[1])).toEqual([
      "-p",
      "s05",
      `${SAMPLE_DIR}/test.js`,
      "'module.exports",
      "s06",
      "s06",
      "s06",
    ]);
  });

  it("shows what each prints, run in order in one directory and one home", { timeout: 120_000 }, () => {
    const runs = runSamplesInOrder({ samples, sampleDir: SAMPLE_DIR, setup: "", repoRoot: REPO_ROOT });
    for (const run of runs) {
      expect(run.printed, run.command).toEqual(run.shown);
      // the problem: the answer stood, and the test it broke fails
      const status = run.command.startsWith("node ") ? 1 : 0;
      expect(run.status, `${run.command}\n${run.stderr}`).toBe(status);
    }
  });
});
