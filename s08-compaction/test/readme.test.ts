/**
 * The chapter text cannot drift from the code: the chapter-text suite (every ```ts excerpt in the
 * sources, the whole loop the source's, the diff of s07's loop against this one real and whole,
 * the lines of the options it adds the CLI's, the same code in both languages); then this chapter's
 * own: context_overflow in its table of stop reasons and its exit status, a legend for the token
 * figures, its REPL command, the numbers are the code's, it names no API the loop rebuild removed,
 * and every sample run is that command run again offline, in the text's order.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { exitCodeFor, REPO_ROOT, usage } from "@harness/cli";
import { projectSlug } from "@harness/s04-tracing";
import { chapterTextSuite, mainPath, proseOf, runSamplesInOrder, shellBlocks } from "@harness/testkit";
import { describe, expect, it } from "vitest";
import { chapter as s07Chapter } from "../../s07-sessions/src/main.ts";
import { KEEP_RECENT_TURNS } from "../src/compaction/clear-old-results.ts";
import { CONTEXT_WINDOWS, DEFAULT_CONTEXT_BUDGET, THRESHOLDS } from "../src/context-budget.ts";
import { MAX_COMPACTION_FAILURES } from "../src/context-window.ts";
import { chapter } from "../src/main.ts";

const CHAPTER = join(REPO_ROOT, "s08-compaction");
const READMES = ["README.md", "README.zh.md"] as const;
const S07_LOOP = join(REPO_ROOT, "s07-sessions", "src", "agent-loop.ts");
const S08_LOOP = join(CHAPTER, "src", "agent-loop.ts");

const readme = (name: string) => readFileSync(join(CHAPTER, name), "utf8");

chapterTextSuite({
  chapter: CHAPTER,
  sources: [join(CHAPTER, "src"), join(REPO_ROOT, "shared", "src"), join(REPO_ROOT, "cli", "src")],
  excerpts: 9,
  wholeLoop: {},
  diffs: [{ label: "s07's loop against this one", hunks: 5, from: S07_LOOP, to: S08_LOOP }],
  cli: {
    chapter,
    previous: s07Chapter,
    usage,
    exitCodeFor,
  },
});

describe.each(READMES)("%s", (name) => {
  const text = readme(name);

  it("names context_overflow in its table of stop reasons", () => {
    expect(text).toMatch(/^\|[^|\n]+\| `context_overflow` +\|/m);
  });

  it("states context_overflow's exit status as the CLI maps it", () => {
    const status = exitCodeFor("context_overflow", chapter.exitCodes);
    expect(status).toBe(5);
    expect(text).toContain(name === "README.md" ? `(exit status ${status})` : `（退出码 ${status}）`);
  });

  it("explains the three token figures of a context line (a legend, on the main path)", () => {
    const main = mainPath(text);
    for (const figure of ["`864`", "`3,200`", "`4,000`", "`27%`", "`~846 in / ~18 out`"]) {
      expect(main).toContain(figure);
    }
  });

  it("names its REPL command as the CLI's help writes it", () => {
    for (const line of chapter.commandHelp ?? []) expect(text).toContain(line.split("  ")[0]);
  });

  it("states the code's numbers", () => {
    const prose = proseOf(text).replace(/\s+/g, " ");
    const percent = (share: number) => `${Math.round(share * 100)}%`;
    for (const figure of [percent(THRESHOLDS.clear), percent(THRESHOLDS.summarise)]) expect(prose).toContain(figure);
    expect(prose).toContain(CONTEXT_WINDOWS[0].window.toLocaleString("en-US"));
    expect(prose).toContain(DEFAULT_CONTEXT_BUDGET.window.toLocaleString("en-US"));
    const three = name === "README.md" ? "three" : "三";
    expect([KEEP_RECENT_TURNS, MAX_COMPACTION_FAILURES]).toEqual([3, 3]);
    expect(prose).toContain(three);
    expect(THRESHOLDS.tail).toBe(0.25);
  });
});

describe("the chapter text", () => {
  it("names no API the loop rebuild removed", () => {
    for (const text of READMES.map(readme)) {
      expect(text).not.toMatch(
        /ContextKeeper|context-keeper|\bkeeper\b|reactsTo|sendTurnWith|CompactionCliParts|compactionCli|S08_OPTIONS|AgentStopReason|observer/,
      );
    }
  });
});

/**
 * The sample runs, through testkit's `runSamplesInOrder` as a reader runs them: the setup block,
 * then each ```sh block that runs `pnpm s08` and is followed by a ```text block, in the text's
 * order, from the repository root, in one copy of the sample directory (its path the same length,
 * as the scripted model estimates tokens from the request's size and the system prompt names the
 * directory) and one harness home. Each output must be its block, where a line `…` stands for
 * lines left out.
 */
describe("the sample runs in README.md", () => {
  const text = readme("README.md");
  const SAMPLE_DIR = "/tmp/s08-sample";
  const blocks = shellBlocks(text);
  const setup = blocks.find(({ command }) => command.startsWith(`mkdir -p ${SAMPLE_DIR}\n`));
  const samples = blocks.filter(
    (block) => block === setup || (/^[^\n]*pnpm s08 [^\n]*$/.test(block.command) && block.output !== ""),
  );

  it("has a setup block and four samples: the problem, then compaction by threshold, by hand, by the server", () => {
    expect(samples[0]).toBe(setup);
    expect(samples.slice(1).map((s) => s.command.match(/--compaction (\w+)/)?.[1] ?? "client")).toEqual([
      "off",
      "client",
      "client",
      "server",
    ]);
  });

  it("shows what each prints, run in order in one directory and one home", { timeout: 180_000 }, () => {
    const runs = runSamplesInOrder({ samples, sampleDir: SAMPLE_DIR, setup: "", repoRoot: REPO_ROOT, projectSlug });
    for (const { command, shown, printed: real, status, stderr } of runs) {
      expect(status, `${command}\n${stderr}`).toBe(0);
      // each piece between `…` lines is in the real output, in order; the first at its start, the last at its end
      const pieces = shown
        .join("\n")
        .split("\n…\n")
        .map((piece) => piece.split("\n"));
      let at = 0;
      pieces.forEach((piece, i) => {
        const found = real.findIndex((_, k) => k >= at && piece.every((line, j) => real[k + j] === line));
        expect(
          found,
          `${command}: not in the output after line ${at}:\n${piece.join("\n")}\n---\n${real.join("\n")}`,
        ).toBeGreaterThanOrEqual(at);
        if (i === 0) expect(found).toBe(0);
        if (i === pieces.length - 1) expect(found + piece.length).toBe(real.length);
        at = found + piece.length;
      });
    }
  });
});
