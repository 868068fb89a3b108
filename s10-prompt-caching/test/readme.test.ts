import { readFileSync } from "node:fs";
import { join } from "node:path";
import { exitCodeFor, REPO_ROOT, usage } from "@harness/cli";
import { projectSlug } from "@harness/s04-tracing";
import { chapterTextSuite, codeFences, runSamplesInOrder } from "@harness/testkit";
import { describe, expect, it } from "vitest";
import { chapter as s09Chapter } from "../../s09-providers/src/main.ts";
import { chapter } from "../src/main.ts";
import { CACHE_BREAKERS, secondRun } from "./cache-breakers.ts";

const CHAPTER = join(REPO_ROOT, "s10-prompt-caching");
const READMES = ["README.md", "README.zh.md"] as const;
const S09 = join(REPO_ROOT, "s09-providers", "src");
const S10 = join(CHAPTER, "src");
const readme = (name: string) => readFileSync(join(CHAPTER, name), "utf8");

/** The text a reader meets without opening a folded section. */
const mainPath = (text: string) => text.replace(/<details>[\s\S]*?<\/details>/g, "");

chapterTextSuite({
  chapter: CHAPTER,
  excerpts: 2,
  wholeLoop: {},
  diffs: [
    {
      label: "s09's loop against this one (the header line)",
      block: 0,
      changedLines: 2,
      from: join(S09, "agent-loop.ts"),
      to: join(S10, "agent-loop.ts"),
    },
    { label: "s09's main.ts against this one", block: 1, from: join(S09, "main.ts"), to: join(S10, "main.ts") },
  ],
  cli: { chapter, previous: s09Chapter, usage, exitCodeFor },
});

describe.each(READMES)("%s", (name) => {
  const text = readme(name);

  it("shows what breaks a cache as the runs of test/cache-breakers.ts give it", async () => {
    const rows = [...text.matchAll(/^\| ([^|]+?) +\| ([\d,]+) +\| ([\d,]+) +\|$/gm)].map((m) => m.slice(1, 4));
    expect(rows).toHaveLength(CACHE_BREAKERS.length);
    const n = (value: number) => value.toLocaleString("en-US");
    for (const [i, breaker] of CACHE_BREAKERS.entries()) {
      const run = await secondRun(breaker);
      expect(rows[i].slice(1), breaker.name).toEqual([n(run.read), n(run.written)]);
    }
  });

  it("has a main path of at most 12,000 characters outside its folded sections (English), and folds the depth", () => {
    if (name === "README.md") expect(mainPath(text).length).toBeLessThanOrEqual(12_000);
    expect(text.match(/<details>/g)?.length).toBeGreaterThanOrEqual(5);
  });
});

describe("the chapter's loop", () => {
  it("is s09's: the files differ in their first line only", () => {
    const [s09, s10] = [S09, S10].map((dir) => readFileSync(join(dir, "agent-loop.ts"), "utf8").split("\n"));
    expect(s10.slice(1)).toEqual(s09.slice(1));
    expect(s10[0]).toMatch(/^\/\*\* s10: s09's loop, unchanged: /);
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
  const SAMPLE_DIR = "/tmp/s10-sample";
  const setup = codeFences(text, "sh").find((block) => block.startsWith(`mkdir -p ${SAMPLE_DIR} `)) ?? "";
  const samples = [...text.matchAll(/^```sh\n([^\n]*pnpm s\d\d [^\n]*)\n```\n\n```text\n([\s\S]*?)^```$/gm)].map(
    ([, command, output]) => ({ command, output }),
  );

  it("has a setup block, the run with the cache off, then the REPL with it on", () => {
    expect(setup).not.toBe("");
    expect(samples.map((s) => s.command)).toEqual([
      expect.stringContaining("pnpm s10 --prompt-cache off"),
      expect.stringMatching(/^printf .* \| pnpm s10 --cwd/),
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
