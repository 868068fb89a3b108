import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "@harness/cli";
import { projectSlug } from "@harness/s04-tracing";
import { chapterTextSuite, codeFences, runSamplesInOrder } from "@harness/testkit";
import { describe, expect, it } from "vitest";
import { exercises } from "./exercises.ts";

const CHAPTER = join(REPO_ROOT, "s14-mcp");
const READMES = ["README.md", "README.zh.md"] as const;
const S13 = join(REPO_ROOT, "s13-skills", "src");
const S14 = join(CHAPTER, "src");
const readme = (name: string) => readFileSync(join(CHAPTER, name), "utf8");

/** The text a reader meets without opening a folded section. */
const mainPath = (text: string) => text.replace(/<details>[\s\S]*?<\/details>/g, "");

chapterTextSuite({
  chapter: CHAPTER,
  excerpts: 2,
  stub: exercises[0].replace,
  wholeLoop: {},
  diffs: [
    {
      label: "s13's loop against this one (the header line and one import)",
      block: 0,
      changedLines: 4,
      from: join(S13, "agent-loop.ts"),
      to: join(S14, "agent-loop.ts"),
    },
    { label: "s13's main.ts against this one", block: 1, from: join(S13, "main.ts"), to: join(S14, "main.ts") },
  ],
});

describe.each(READMES)("%s", (name) => {
  const text = readme(name);

  it("names in its table of pieces files that are the chapter's (a library by its folder)", () => {
    const named = [...text.matchAll(/\| `([a-z/-]+\.ts)` +\|$/gm)].map((m) => m[1]);
    expect(named.length).toBeGreaterThanOrEqual(7);
    for (const file of named) expect(existsSync(join(S14, file)), file).toBe(true);
  });

  it("has a main path of at most 12,000 characters outside its folded sections (English), and folds the depth", () => {
    if (name === "README.md") expect(mainPath(text).length).toBeLessThanOrEqual(12_000);
    expect(text.match(/<details>/g)?.length).toBeGreaterThanOrEqual(4);
  });

  it("states the defaults the code has: MCP_TIMEOUT, MCP_TOOL_TIMEOUT, the tenth of the window", () => {
    expect(text).toContain("30 000");
    expect(text).toContain("120 000");
    expect(text).toContain("10%");
  });
});

/**
 * The sample runs, in the text's order, from the repository's root (the course's server is named
 * by a path relative to it) with one harness home, and one copy of the sample directory its setup
 * block makes (the untrusted project's).
 */
describe("the sample runs in README.md", () => {
  const text = readme("README.md");
  const SAMPLE_DIR = "/tmp/s14-sample";
  const setup = codeFences(text, "sh").find((block) => block.startsWith(`mkdir -p ${SAMPLE_DIR}/`)) ?? "";
  const samples = [...text.matchAll(/^```sh\n([^\n]*pnpm s\d\d [^\n]*)\n```\n\n```text\n([\s\S]*?)^```$/gm)].map(
    ([, command, output]) => ({ command, output }),
  );

  it("has a setup block, the course's server asked twice, then the project's file untrusted", () => {
    expect(setup).not.toBe("");
    expect(samples.map((s) => s.command)).toEqual([
      expect.stringContaining(
        "pnpm s14 --cwd /tmp/s14-sample --mcp-config s14-mcp/example/.mcp.json --allow mcp__course",
      ),
      expect.stringContaining("what s99 adds"),
      expect.stringMatching(/^pnpm s14 --cwd \/tmp\/s14-sample "/),
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
