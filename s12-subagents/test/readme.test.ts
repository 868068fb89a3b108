import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "@harness/cli";
import { projectSlug } from "@harness/s04-tracing";
import { chapterTextSuite, codeFences, runSamplesInOrder } from "@harness/testkit";
import { describe, expect, it } from "vitest";

const CHAPTER = join(REPO_ROOT, "s12-subagents");
const READMES = ["README.md", "README.zh.md"] as const;
const S11 = join(REPO_ROOT, "s11-planning", "src");
const S12 = join(CHAPTER, "src");
const readme = (name: string) => readFileSync(join(CHAPTER, name), "utf8");

/** The text a reader meets without opening a folded section. */
const mainPath = (text: string) => text.replace(/<details>[\s\S]*?<\/details>/g, "");

chapterTextSuite({
  chapter: CHAPTER,
  excerpts: 2,
  wholeLoop: {},
  diffs: [
    {
      label: "s11's loop against this one (the header line)",
      block: 0,
      changedLines: 2,
      from: join(S11, "agent-loop.ts"),
      to: join(S12, "agent-loop.ts"),
    },
    { label: "s11's main.ts against this one", block: 1, from: join(S11, "main.ts"), to: join(S12, "main.ts") },
  ],
});

describe.each(READMES)("%s", (name) => {
  const text = readme(name);

  it("names in its table of pieces files that are the chapter's (a library by its folder)", () => {
    const named = [...text.matchAll(/\| `([a-z/-]+\.ts)` +\|$/gm)].map((m) => m[1]);
    expect(named.length).toBeGreaterThanOrEqual(7);
    for (const file of named) expect(existsSync(join(S12, file)), file).toBe(true);
  });

  it("has a main path of at most 12,000 characters outside its folded sections (English), and folds the depth", () => {
    if (name === "README.md") expect(mainPath(text).length).toBeLessThanOrEqual(12_000);
    expect(text.match(/<details>/g)?.length).toBeGreaterThanOrEqual(4);
  });
});

describe("the chapter's loop", () => {
  it("is s11's: the files differ in their first line only", () => {
    const [s11, s12] = [S11, S12].map((dir) => readFileSync(join(dir, "agent-loop.ts"), "utf8").split("\n"));
    expect(s12.slice(1)).toEqual(s11.slice(1));
    expect(s12[0]).toMatch(/^\/\*\* s12: s11's loop, unchanged: /);
  });
});

/**
 * The sample runs, in the text's order, in one copy of the sample directory its setup block makes
 * (the path the same length, as the scripted model estimates tokens from the request's size and the
 * system prompt names the directory) and one harness home, as a reader runs them from the
 * repository root. What varies from run to run is normalised: the directory, the home, session ids.
 */
describe("the sample runs in README.md", () => {
  const text = readme("README.md");
  const SAMPLE_DIR = "/tmp/s12-sample";
  const setup = codeFences(text, "sh").find((block) => block.startsWith(`mkdir -p ${SAMPLE_DIR}/`)) ?? "";
  const samples = [...text.matchAll(/^```sh\n([^\n]*pnpm s\d\d [^\n]*)\n```\n\n```text\n([\s\S]*?)^```$/gm)].map(
    ([, command, output]) => ({ command, output }),
  );

  it("has a setup block, the delegated search, then the same with one turn for the child", () => {
    expect(setup).not.toBe("");
    expect(samples.map((s) => s.command)).toEqual([
      expect.stringContaining('pnpm s12 --cwd /tmp/s12-sample "Use a subagent'),
      expect.stringContaining("pnpm s12 --cwd /tmp/s12-sample --task-turns 1"),
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
