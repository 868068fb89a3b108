/**
 * The chapter text cannot drift from the code: the chapter-text suite (every ```ts excerpt in the
 * sources, the whole loop the source's, the diff of s04's loop against this one real and whole,
 * the help and the exit table the CLI's, the same code in both languages); then this chapter's
 * own: the tables are what the code does, the boundary table is the test's, and every sample run
 * is that command run again offline.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { exitCodeFor, usage } from "@harness/cli";
import {
  chapterTextSuite,
  codeFences,
  commandWords,
  fakeTerminal,
  proseOf,
  runSampleScript,
  sampleDirs,
  sampleRuns,
  until,
} from "@harness/testkit";
import { describe, expect, it } from "vitest";
import { chapter as s04Chapter } from "../../s04-tracing/src/main.ts";
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
    exitTable: ["final_answer", "max_turns", "max_tokens", "error", "aborted"],
  },
});

describe.each(READMES)("%s", (name) => {
  const text = readme(name);

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
 * The sample runs, each in a fresh copy of the sample directory the text's setup block makes (its
 * path the same length, as the scripted model estimates tokens from the request's size and the
 * system prompt names the directory). A ```sh block holding one `pnpm sNN ...` command followed by
 * a ```text block that starts with `[turn 1]` is that command's stdout; the REPL session is typed
 * on a fake terminal; the settings error is its block run by sh.
 */
describe("the sample runs in README.md", () => {
  const text = readme("README.md");
  const SAMPLE_DIR = "/tmp/s05-sample";
  const setup = codeFences(text, "sh").find((block) => block.startsWith(`mkdir -p ${SAMPLE_DIR}/build\n`)) ?? "";
  const samples = sampleRuns(text);
  const scripts = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")).scripts as Record<string, string>;
  const sampleDir = sampleDirs(SAMPLE_DIR, setup);

  it("has a setup block and the samples: s04's two failures, then s05's runs", () => {
    expect(setup).not.toBe("");
    expect(samples.map((s) => s.command.split(" ")[1])).toEqual(["s04", "s04", "s05", "s05", "s05", "s05"]);
  });

  it.each(samples)("shows what `$command` prints", { timeout: 60_000 }, async ({ command, output }) => {
    const dir = sampleDir();
    const [, chapter, ...rest] = commandWords(command.replace(/ < \/dev\/null$/, ""));
    const args = rest.map((arg) => arg.replaceAll(SAMPLE_DIR, dir));
    const { code, stdout, stderr } = await runSampleScript(scripts[chapter], args, {
      "s05-permissions/src/main.ts": main,
    });
    expect(code, stderr).toBe(0);
    expect(stdout.replaceAll(dir, SAMPLE_DIR)).toBe(output);
    // the question no one could answer, shown after the first run of s05
    const asked = codeFences(text, "text").find((block) => block.startsWith("s05: no terminal to ask"));
    if (command.endsWith("< /dev/null")) expect(stderr).toContain(asked);
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

  it("shows the one line a settings file that does not parse gives", { timeout: 60_000 }, async () => {
    const dir = sampleDir();
    const block = codeFences(text, "sh").find((b) => b.startsWith(`mkdir -p ${SAMPLE_DIR}/.harness\n`)) ?? "";
    const shown = codeFences(text, "text").find((b) => b.startsWith("s05: error: .harness/settings.json"));
    const ran = spawnSync("sh", ["-c", block.replaceAll(SAMPLE_DIR, dir).replace(/^pnpm s05/m, scripts.s05)], {
      cwd: REPO,
      encoding: "utf8",
      env: cleanEnv(dir),
    });
    expect(ran.stderr).toBe(shown);
    expect(ran.stdout).toBe("");
  });
});

/** The environment without the shell's key, endpoint and model, with a home of its own. */
function cleanEnv(home: string): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(ANTHROPIC_|HARNESS_|MODEL_ID$|INIT_CWD$|DEBUG$)/.test(name)),
  );
  return { ...env, NO_COLOR: "1", HARNESS_HOME: join(home, ".home") };
}
