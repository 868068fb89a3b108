/**
 * The chapter text cannot drift from the code: the chapter-text suite (its ts excerpts real, the
 * whole loop the source's, the diff of s05's loop against this one real and whole, the help and
 * the exit table what the CLI declares, the same code in both languages); then this chapter's
 * own: the settings example loads, the names and numbers it states are the code's, and every
 * sample run is that command run again offline.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exitCodeFor, REPO_ROOT, usage } from "@harness/cli";
import { CLAUDE_CODE_TOOL_NAMES, PROJECT_SETTINGS, TRUST_FILE } from "@harness/s05-permissions";
import { chapterTextSuite, codeFences, commandWords, runSampleScript, sampleDirs, sampleRuns } from "@harness/testkit";
import { describe, expect, it } from "vitest";
import { chapter as s05Chapter, main as s05Main } from "../../s05-permissions/src/main.ts";
import { chapter, main } from "../src/main.ts";
import { HOOK_EVENTS } from "../src/runner/hook-input.ts";
import { DEFAULT_HOOK_TIMEOUT_SECONDS, loadHooks } from "../src/runner/load-hooks.ts";

const CHAPTER = join(REPO_ROOT, "s06-hooks");
const READMES = ["README.md", "README.zh.md"] as const;
const S05_LOOP = join(REPO_ROOT, "s05-permissions", "src", "agent-loop.ts");
const S06_LOOP = join(CHAPTER, "src", "agent-loop.ts");
const text = (name: string) => readFileSync(join(CHAPTER, name), "utf8");
const file = (path: string) => readFileSync(path, "utf8");
/** The CLIs whose samples run in this process (each script checked to run that folder's main.ts). */
const MAINS = { "s05-permissions/src/main.ts": s05Main, "s06-hooks/src/main.ts": main };

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
 * The sample runs, each in a fresh copy of the sample directory the problem's setup block makes
 * (its path the same length, as the scripted model estimates tokens from the request's size and
 * the system prompt names the directory). A ```sh block holding one `pnpm sNN ...` command
 * followed by a ```text block that starts with `[turn 1]` is that command's stdout.
 */
describe("the sample runs in README.md", () => {
  const markdown = text("README.md");
  const SAMPLE_DIR = "/tmp/s06-sample";
  const setup = codeFences(markdown, "sh").find((block) => block.startsWith(`mkdir -p ${SAMPLE_DIR}/`)) ?? "";
  const samples = sampleRuns(markdown);
  const scripts = JSON.parse(file(join(REPO_ROOT, "package.json"))).scripts as Record<string, string>;
  const sampleDir = sampleDirs(SAMPLE_DIR, setup);

  it("has a setup block and the samples: s05 missing the failing test, then a sample per example hook", () => {
    expect(setup).not.toBe("");
    expect(samples.map((s) => s.command.split(" ")[1])).toEqual(["s05", "s06", "s06", "s06"]);
  });

  it.each(samples)("shows what `$command` prints", { timeout: 60_000 }, async ({ command, output }) => {
    const dir = sampleDir();
    const [, chapter, ...rest] = commandWords(command);
    const args = rest.map((arg) => arg.replaceAll(SAMPLE_DIR, dir));
    const { code, stdout, stderr } = await runSampleScript(scripts[chapter], args, MAINS);
    expect(code, stderr).toBe(0);
    expect(stdout.replaceAll(dir, SAMPLE_DIR)).toBe(output);
    if (chapter !== "s05") return;
    // the problem: the answer stands, and the test it broke fails
    const [check] = codeFences(markdown, "sh").filter((block) => block === `node ${SAMPLE_DIR}/test.js\n`);
    const shown = codeFences(markdown, "text").find((block) => block.startsWith("FAIL "));
    const tested = spawnSync("sh", ["-c", check.replaceAll(SAMPLE_DIR, dir)], { encoding: "utf8" });
    expect(tested.status).toBe(1);
    expect(tested.stdout).toBe(shown);
  });
});
