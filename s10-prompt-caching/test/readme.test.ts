/**
 * The chapter text cannot drift from the code: the chapter-text suite (excerpts in the sources,
 * the whole loop the source's, both ```diff blocks real and whole: the loops', main.ts's; the
 * options it adds as the CLI's help gives them; the same code in both languages); then this
 * chapter's own: the table of what breaks a cache is what the runs give, the main path fits
 * fifteen minutes, the loop is s09's, and every sample run is that command run again offline, in
 * order.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exitCodeFor, REPO_ROOT, usage } from "@harness/cli";
import { projectSlug } from "@harness/s04-tracing";
import { chapterTextSuite, codeFences } from "@harness/testkit";
import { afterAll, describe, expect, it } from "vitest";
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
  const scripts = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")).scripts as Record<string, string>;
  const made: string[] = [];
  afterAll(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("has a setup block, the run with the cache off, then the REPL with it on", () => {
    expect(setup).not.toBe("");
    expect(samples.map((s) => s.command)).toEqual([
      expect.stringContaining("pnpm s10 --prompt-cache off"),
      expect.stringMatching(/^printf .* \| pnpm s10 --cwd/),
    ]);
  });

  it("shows what each sample prints, run in order in one project and one home", { timeout: 120_000 }, () => {
    const dir = mkdtempSync("/tmp/s10-");
    const home = mkdtempSync(join(tmpdir(), "s10-home-"));
    made.push(dir, home);
    expect(dir.length).toBe(SAMPLE_DIR.length);
    const ready = spawnSync("sh", ["-c", setup.replaceAll(SAMPLE_DIR, dir)], { encoding: "utf8" });
    expect(ready.status, ready.stderr).toBe(0);
    const env = Object.fromEntries(
      Object.entries(process.env).filter(
        ([key]) => !/^(ANTHROPIC_|OPENAI_|HARNESS_|MODEL_ID$|INIT_CWD$|DEBUG$)/.test(key),
      ),
    );
    const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
    const ids = new Map<string, string>(); // a real session id → the one the text shows
    const shownIds = [...new Set(samples.flatMap((s) => s.output.match(UUID) ?? []))];
    for (const { command, output } of samples) {
      const script = /pnpm (s\d\d)/.exec(command)?.[0] ?? "";
      const ran = spawnSync(
        "sh",
        ["-c", command.replaceAll(SAMPLE_DIR, dir).replace(script, scripts[script.slice(5)])],
        { cwd: REPO_ROOT, encoding: "utf8", env: { ...env, NO_COLOR: "1", HARNESS_HOME: home } },
      );
      for (const id of new Set(ran.stdout.match(UUID) ?? [])) if (!ids.has(id)) ids.set(id, shownIds[ids.size] ?? id);
      let real = ran.stdout.replaceAll(
        join(home, "projects", projectSlug(dir)),
        `~/.harness/projects/${projectSlug(SAMPLE_DIR)}`,
      );
      for (const [id, shown] of ids) real = real.replaceAll(id, shown);
      const lines = (s: string) =>
        s
          .replaceAll(dir, SAMPLE_DIR)
          .split("\n")
          .map((line) => line.trimEnd());
      expect(lines(real), command).toEqual(lines(output));
      expect(ran.status, command).toBe(0);
    }
  });
});
