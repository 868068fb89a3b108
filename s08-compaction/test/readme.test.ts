/**
 * The chapter text cannot drift from the code: the chapter-text suite (every ```ts excerpt in the
 * sources, the whole loop the source's, the diff of s07's loop against this one real and whole,
 * the help and the exit table the CLI's, the same code in both languages); then this chapter's
 * own: context_overflow in its table of stop reasons, the numbers are the code's, it names no API
 * the loop rebuild removed, and every sample run is that command run again offline.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exitCodeFor, REPO_ROOT, usage } from "@harness/cli";
import { projectSlug } from "@harness/s04-tracing";
import { chapterTextSuite, codeFences, proseOf } from "@harness/testkit";
import { afterAll, describe, expect, it } from "vitest";
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
    exitTable: ["final_answer", "max_turns", "max_tokens", "prompt_blocked", "context_overflow", "error", "aborted"],
  },
});

describe.each(READMES)("%s", (name) => {
  const text = readme(name);

  it("names context_overflow in its table of stop reasons", () => {
    expect(text).toMatch(/^\|[^|\n]+\| `context_overflow` +\|/m);
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
 * The sample runs, in a fresh copy of the sample directory the text's setup block makes (its path
 * the same length, as the scripted model estimates tokens from the request's size and the system
 * prompt names the directory). Each ```sh block that runs `pnpm s08` and is followed by a ```text
 * block is run by sh from the repository root; its output must be that block, where a line `…`
 * stands for lines left out.
 */
describe("the sample runs in README.md", () => {
  const text = readme("README.md");
  const SAMPLE_DIR = "/tmp/s08-sample";
  const setup = codeFences(text, "sh").find((block) => block.startsWith(`mkdir -p ${SAMPLE_DIR}\n`)) ?? "";
  const samples = [...text.matchAll(/^```sh\n([^\n]*pnpm s08 [^\n]*)\n```\n\n```text\n([\s\S]*?)^```$/gm)].map(
    ([, command, output]) => ({ command, output }),
  );
  const scripts = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")).scripts as Record<string, string>;
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  function sampleDir(): string {
    const dir = mkdtempSync("/tmp/s08-");
    dirs.push(dir);
    expect(dir.length).toBe(SAMPLE_DIR.length);
    const made = spawnSync("sh", ["-c", setup.replaceAll(SAMPLE_DIR, dir)], { encoding: "utf8" });
    expect(made.status, made.stderr).toBe(0);
    return dir;
  }

  it("has a setup block and four samples: the problem, then compaction by threshold, by hand, by the server", () => {
    expect(setup).not.toBe("");
    expect(samples.map((s) => s.command.match(/--compaction (\w+)/)?.[1] ?? "client")).toEqual([
      "off",
      "client",
      "client",
      "server",
    ]);
  });

  it.each(samples)("shows what `$command` prints", { timeout: 120_000 }, ({ command, output }) => {
    const dir = sampleDir();
    const home = mkdtempSync(join(tmpdir(), "s08-home-"));
    dirs.push(home);
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([key]) => !/^(ANTHROPIC_|HARNESS_|MODEL_ID$|INIT_CWD$|DEBUG$)/.test(key)),
    );
    const ran = spawnSync("sh", ["-c", command.replaceAll(SAMPLE_DIR, dir).replace("pnpm s08", scripts.s08)], {
      cwd: REPO_ROOT,
      encoding: "utf8",
      env: { ...env, NO_COLOR: "1", HARNESS_HOME: home },
    });
    // what varies from run to run: the home the session is written in, and its id (the text's, in order)
    const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
    const shownIds = [...new Set(output.match(UUID) ?? [])];
    let stdout = ran.stdout.replaceAll(
      join(home, "projects", projectSlug(dir)),
      `~/.harness/projects/${projectSlug(SAMPLE_DIR)}`,
    );
    [...new Set(ran.stdout.match(UUID) ?? [])].forEach((id, i) => {
      stdout = stdout.replaceAll(id, shownIds[i] ?? id);
    });
    const real = stdout
      .replaceAll(dir, SAMPLE_DIR)
      .split("\n")
      .map((line) => line.trimEnd());
    const shown = output.split("\n").map((line) => line.trimEnd());
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
        `not in the output after line ${at}:\n${piece.join("\n")}\n---\n${real.join("\n")}`,
      ).toBeGreaterThanOrEqual(at);
      if (i === 0) expect(found).toBe(0);
      if (i === pieces.length - 1) expect(found + piece.length).toBe(real.length);
      at = found + piece.length;
    });
  });
});
