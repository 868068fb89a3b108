/**
 * The chapter text against the code: its ts excerpts are real, its settings example loads, and the
 * names and numbers it states are the code's.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "@harness/shared";
import { codeFences, containsRun, normalisedLines, sourceLines } from "@harness/testkit";
import { describe, expect, it } from "vitest";
import { MAX_STOP_HOOK_CONTINUATIONS } from "../src/continue-after-stop.ts";
import { HOOK_EVENTS } from "../src/hook-input.ts";
import { DEFAULT_HOOK_TIMEOUT_SECONDS, loadHooks, PROJECT_SETTINGS } from "../src/load-hooks.ts";
import { CLAUDE_CODE_TOOL_NAMES } from "../src/match-hooks.ts";
import { TRUST_FILE } from "../src/trust.ts";

const CHAPTER = join(REPO_ROOT, "s06-hooks");
const text = (name: string) => readFileSync(join(CHAPTER, name), "utf8");

/** Where each text states the code's numbers, in its own words. */
const NUMBERS: Record<string, string[]> = {
  "README.md": [
    `by default\n${DEFAULT_HOOK_TIMEOUT_SECONDS} s`,
    `at most ${MAX_STOP_HOOK_CONTINUATIONS} times per prompt`,
    `at most ${MAX_STOP_HOOK_CONTINUATIONS} continuations per prompt`,
  ],
  "README.zh.md": [
    `默认 ${DEFAULT_HOOK_TIMEOUT_SECONDS} 秒`,
    `最多允许 ${MAX_STOP_HOOK_CONTINUATIONS} 次这样的继续`,
    `最多继续 ${MAX_STOP_HOOK_CONTINUATIONS} 次`,
  ],
};

describe.each(["README.md", "README.zh.md"])("%s", (name) => {
  const markdown = text(name);

  it("quotes only real code: each ts excerpt appears line for line in one file of src/", () => {
    const sources = sourceLines([join(CHAPTER, "src")]);
    const excerpts = codeFences(markdown, "ts");
    expect(excerpts.length).toBeGreaterThanOrEqual(2);
    for (const excerpt of excerpts) {
      const found = sources.some((source) => containsRun(source.lines, normalisedLines(excerpt)));
      expect(found, `not in src/:\n${excerpt}`).toBe(true);
    }
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
    const examples = readdirSync(join(CHAPTER, "examples"));
    for (const example of examples)
      expect(markdown).toContain(`\`${example === "settings.json" ? "examples/settings.json" : example}\``);
  });

  it("states the code's numbers and file names", () => {
    const prose = markdown.replace(/\s*\n\s*/g, " ");
    for (const phrase of NUMBERS[name]) expect(prose).toContain(phrase.replace(/\n/g, " "));
    expect(markdown).toContain(`$HARNESS_HOME/${TRUST_FILE}`);
  });
});
