/**
 * The chapter text cannot drift from the code: the chapter-text suite (every ```ts excerpt in the
 * sources, the whole loop the source's, the diff of s04's loop against this one real and whole,
 * the help and the exit table the CLI's, the same code in both languages); then this chapter's
 * own: the tables are what the code does, the boundary table is the test's, and every sample run
 * is that command run again offline, in the text's order.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { exitCodeFor, usage } from "@harness/cli";
import {
  chapterTextSuite,
  codeFences,
  commandWords,
  fakeTerminal,
  proseOf,
  runSamplesInOrder,
  sampleDirs,
  shellBlocks,
  until,
} from "@harness/testkit";
import { describe, expect, it } from "vitest";
import { chapter as s04Chapter } from "../../s04-tracing/src/main.ts";
import { PERMISSION_FLAGS } from "../src/flags.ts";
import { decide, PERMISSION_MODES, type PermissionMode } from "../src/index.ts";
import { chapter, main } from "../src/main.ts";
import { EVASIONS, shownLine } from "./evasions.ts";
import { bash, settingsFor, tool } from "./temp-project.ts";

const CHAPTER = join(import.meta.dirname, "..");
const REPO = join(CHAPTER, "..");
const READMES = ["README.md", "README.zh.md"] as const;
const S04_LOOP = join(REPO, "s04-tracing", "src", "agent-loop.ts");
const S05_LOOP = join(CHAPTER, "src", "agent-loop.ts");
const readme = (name: string) => readFileSync(join(CHAPTER, name), "utf8");
const _loopFile = (path: string) => readFileSync(path, "utf8");

/** The rows of the markdown table whose header row starts with `first`, as trimmed cells. */
function tableRows(markdown: string, first: RegExp): string[][] {
  const table = [...markdown.matchAll(/^(?:\|.*\n)+/gm)].map((m) => m[0]).find((t) => first.test(t)) ?? "";
  return table
    .trimEnd()
    .split("\n")
    .slice(2)
    .map((row) =>
      row
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim().replaceAll("\\|", "|")),
    );
}

/** A code span's text: `` `a` `` and ``` `` `a` `` ``` alike. */
const code = (cell: string) => cell.replace(/^(`+) ?([\s\S]*?) ?\1$/, "$2");

chapterTextSuite({
  chapter: CHAPTER,
  sources: [
    join(CHAPTER, "src"),
    join(REPO, "s02-tool-dispatch", "src"),
    join(REPO, "shared", "src"),
    join(REPO, "cli", "src"),
  ],
  excerpts: 6,
  wholeLoop: {},
  diffs: [{ label: "s04's loop against this one", block: 0, hunks: 4, from: S04_LOOP, to: S05_LOOP }],
  cli: {
    chapter,
    previous: s04Chapter,
    usage,
    exitCodeFor,
    // the text names its own options and links the options page (the test below), no help block
    help: false,
  },
});

describe.each(READMES)("%s", (name) => {
  const text = readme(name);

  it("names the options this chapter adds, and links the options page for the rest", () => {
    for (const flag of PERMISSION_FLAGS) {
      expect(chapter.flags).toContain(flag);
      expect(text).toContain(`\`--${flag.name}`);
    }
    expect(text).toContain(name === "README.md" ? "](../docs/options.md)" : "](../docs/options.zh.md)");
  });

  it("shows a settings file that loads", () => {
    const [example] = codeFences(text, "json");
    const { settings } = settingsFor(JSON.parse(example).permissions);
    expect(settings.rules.filter((r) => r.source !== "default").map((r) => r.rule.text)).toEqual([
      "Bash(git diff:*)",
      "Edit(docs/**)",
      "Bash(git push:*)",
      "Bash(rm:*)",
      "Read(secrets/**)",
    ]);
    expect(settings.defaultMode).toBe("acceptEdits");
  });

  it("shows each mode as decide applies it to a read, an edit inside and a command", () => {
    const rows = tableRows(text, /^\|\s*(?:mode|模式)\s*\|/);
    expect(rows.map((row) => code(row[0]))).toEqual([...PERMISSION_MODES]);
    const { cwd, settings } = settingsFor(undefined, { "notes.txt": "x" });
    const calls = [
      tool("read_file", { path: "notes.txt" }),
      tool("write_file", { path: "notes.txt", content: "y" }),
      bash("make"),
    ];
    for (const row of rows) {
      const mode = code(row[0]) as PermissionMode;
      const shown = row
        .slice(1)
        .map((cell) => (/^(?:run|运行)/.test(cell) ? "allow" : /^(?:ask|询问)$/.test(cell) ? "ask" : "deny"));
      expect(
        calls.map((call) => decide(call, settings, mode, cwd).behavior),
        mode,
      ).toEqual(shown);
    }
  });

  it("shows the honest boundary's rows as the test decides them, and counts the table right", () => {
    const rows = tableRows(text, /^\|\s*(?:evasion|绕过方式)\s*\|/);
    const notDenied = EVASIONS.filter((e) => e.stoppedBy !== "engine");
    const behavior = (cell: string) => ({ 询问: "ask", 允许: "allow", 拒绝: "deny" })[cell] ?? cell;
    expect(rows.map((row) => [code(row[1]), behavior(row[2]), behavior(row[3])])).toEqual(
      notDenied.map((e) => [shownLine(e), e.default, e.bypass]),
    );
    const count = (stoppedBy: string) => EVASIONS.filter((e) => e.stoppedBy === stoppedBy).length;
    const prose = proseOf(text, { inlineCode: false }).replace(/\s+/g, " ");
    for (const n of [EVASIONS.length, count("engine"), count("asks"), count("os"), notDenied.length]) {
      expect(prose).toMatch(new RegExp(`(?<![\\d.])${n}(?![\\d.])`));
    }
    expect([EVASIONS.length, count("engine"), count("asks"), count("os")]).toEqual([101, 42, 49, 10]);
  });
});

/**
 * The sample runs, through testkit's `runSamplesInOrder` as a reader runs them: the setup block,
 * s04's two runs, Try it's line that puts `build/` back, then s05's runs and the settings file that
 * does not parse, in the text's order, from the repository root, in one copy of the sample
 * directory (its path the same length, as the scripted model estimates tokens from the request's
 * size and the system prompt names the directory) and one home. A ```text block after a command is
 * its stdout, or for the settings block its stderr. The REPL session of always is typed on a fake
 * terminal in a copy of its own.
 */
describe("the sample runs in README.md", () => {
  const text = readme("README.md");
  const SAMPLE_DIR = "/tmp/s05-sample";
  const blocks = shellBlocks(text);
  const setup = blocks.find(({ command }) => command.startsWith(`mkdir -p ${SAMPLE_DIR}/build\n`));
  const settings = blocks.find(({ command }) => command.startsWith(`mkdir -p ${SAMPLE_DIR}/.harness\n`));
  const samples = blocks.filter(
    (block) =>
      block === setup ||
      block === settings ||
      (!block.command.includes("pnpm ") && block.command.startsWith(`mkdir -p ${SAMPLE_DIR}/build `)) ||
      /^pnpm s\d\d --offline [^\n]*"[^\n]*$/.test(block.command),
  );
  const sampleDir = sampleDirs(SAMPLE_DIR, setup?.command ?? "");

  it("has a setup block and the samples: s04's two failures, the build put back, then s05's runs", () => {
    expect(samples[0]).toBe(setup);
    expect(samples.at(-1)).toBe(settings);
    expect(samples.slice(1, -1).map((s) => s.command.split(" ")[1])).toEqual([
      "s04",
      "s04",
      "-p",
      "s05",
      "s05",
      "s05",
      "s05",
    ]);
  });

  it("shows what each prints, run in order in one directory and one home", { timeout: 120_000 }, () => {
    const runs = runSamplesInOrder({ samples, sampleDir: SAMPLE_DIR, setup: "", repoRoot: REPO });
    // the question no one could answer, shown after the first run of s05
    const asked = codeFences(text, "text").find((block) => block.startsWith("s05: no terminal to ask")) ?? "";
    for (const run of runs) {
      expect(run.status, `${run.command}\n${run.stderr}`).toBe(0);
      if (run.command === settings?.command) {
        expect(run.stderr).toBe(run.shown.join("\n"));
        expect(run.printed).toEqual([""]);
        continue;
      }
      expect(run.printed, run.command).toEqual(run.shown);
      if (run.command.endsWith("< /dev/null")) expect(run.stderr).toContain(asked);
    }
  });

  it("shows the REPL session of always as typed on a terminal, and the rules it saved", {
    timeout: 60_000,
  }, async () => {
    const dir = sampleDir();
    const session = codeFences(text, "text").find((block) => block.startsWith("s05 >> ")) ?? "";
    const [command] = codeFences(text, "sh").filter((block) => /^pnpm s05 [^\n"']*\n$/.test(block));
    const term = fakeTerminal({ INIT_CWD: REPO });
    const exited = main(
      commandWords(command.trim())
        .slice(2)
        .map((arg) => arg.replaceAll(SAMPLE_DIR, dir)),
      term.io,
    );
    let prompts = 0;
    let questions = 0;
    for (const line of session.split("\n")) {
      if (line.startsWith("s05 >> ")) {
        const n = ++prompts;
        await until(`prompt ${n}`, () => term.out().split("s05 >> ").length > n);
        term.type(`${line.slice("s05 >> ".length)}\r`);
      } else if (/\[y\/n(?:\/a)?\] \w+$/.test(line)) {
        const n = ++questions;
        await until(`question ${n}`, () => term.out().split(/\[y\/n(?:\/a)?\] /).length > n);
        term.type(`${line.split(" ").at(-1)}\r`);
      }
    }
    expect(await exited).toBe(0);
    const shown = term
      .out()
      .replace(/\x1b\[\d*[GJ]/g, "")
      .replaceAll("\r", "")
      .replaceAll(dir, SAMPLE_DIR);
    expect(shown.trimEnd()).toBe(session.trimEnd());
    const saved = codeFences(text, "json").find((block) => block.includes("git diff --stat"));
    expect(JSON.parse(readFileSync(join(dir, ".harness", "settings.local.json"), "utf8"))).toEqual(
      JSON.parse(saved ?? ""),
    );
  });
});
