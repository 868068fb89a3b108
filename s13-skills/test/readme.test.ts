import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "@harness/cli";
import { projectSlug } from "@harness/s04-tracing";
import { chapterTextSuite, codeFences, runSamplesInOrder } from "@harness/testkit";
import { describe, expect, it } from "vitest";

const CHAPTER = join(REPO_ROOT, "s13-skills");
const READMES = ["README.md", "README.zh.md"] as const;
const S12 = join(REPO_ROOT, "s12-subagents", "src");
const S13 = join(CHAPTER, "src");
const readme = (name: string) => readFileSync(join(CHAPTER, name), "utf8");

chapterTextSuite({
  chapter: CHAPTER,
  excerpts: 2,
  wholeLoop: {},
  diffs: [
    {
      label: "s12's loop against this one (the header line)",
      block: 0,
      changedLines: 2,
      from: join(S12, "agent-loop.ts"),
      to: join(S13, "agent-loop.ts"),
    },
    { label: "s12's main.ts against this one", block: 1, from: join(S12, "main.ts"), to: join(S13, "main.ts") },
  ],
});

describe.each(READMES)("%s", (name) => {
  const text = readme(name);

  it("names in its table of pieces files that are the chapter's (a library by its folder)", () => {
    const named = [...text.matchAll(/\| `([a-z/-]+\.ts)` +\|$/gm)].map((m) => m[1]);
    expect(named.length).toBeGreaterThanOrEqual(6);
    for (const file of named) expect(existsSync(join(S13, file)), file).toBe(true);
  });

  it("shows the example skills as the chapter ships them: the names its samples use", () => {
    for (const skill of ["todo-triage", "release-notes"]) {
      expect(existsSync(join(CHAPTER, "skills", skill, "SKILL.md")), skill).toBe(true);
      expect(text).toContain(skill);
    }
  });
});

describe("the chapter's loop", () => {
  it("is s12's: the files differ in their first line only", () => {
    const [s12, s13] = [S12, S13].map((dir) => readFileSync(join(dir, "agent-loop.ts"), "utf8").split("\n"));
    expect(s13.slice(1)).toEqual(s12.slice(1));
    expect(s13[0]).toMatch(/^\/\*\* s13: s12's loop, unchanged: /);
  });
});

/**
 * The sample runs, in the text's order, in one copy of the sample directory its setup block makes
 * (from the repository root: it copies the chapter's example skills) and one harness home, as a
 * reader runs them. What varies from run to run is normalised: the directory, the home, session ids.
 */
describe("the sample runs in README.md", () => {
  const text = readme("README.md");
  const SAMPLE_DIR = "/tmp/s13-sample";
  const setup =
    codeFences(text, "sh").find((block) => block.startsWith(`rm -rf ${SAMPLE_DIR} && mkdir -p ${SAMPLE_DIR}/`)) ?? "";
  const samples = [...text.matchAll(/^```sh\n([^\n]*pnpm s\d\d [^\n]*)\n```\n\n```text\n([\s\S]*?)^```$/gm)].map(
    ([, command, output]) => ({ command, output }),
  );

  it("has a setup block, the model's skill, then the user's /NAME in the REPL", () => {
    expect(setup).toContain("cp -r s13-skills/skills");
    expect(samples.map((s) => s.command)).toEqual([
      expect.stringContaining('pnpm s13 --cwd /tmp/s13-sample "Triage the TODO comments'),
      expect.stringContaining("printf '/release-notes 0.2\\n' | pnpm s13 --cwd /tmp/s13-sample"),
    ]);
  });

  it("shows what each sample prints, run in order in one project and one home", { timeout: 120_000 }, () => {
    const runs = runSamplesInOrder({ samples, sampleDir: SAMPLE_DIR, setup, repoRoot: REPO_ROOT, projectSlug });
    for (const run of runs) {
      expect(run.printed, run.command).toEqual(run.shown);
      expect(run.status, `${run.command}\n${run.stderr}`).toBe(0);
    }
  });
});
