/**
 * The chapter text cannot drift from the code: every ```ts excerpt is found verbatim in the
 * sources, the whole loop is the source's, the ```diff is the real diff between s06's loop and
 * this one, the mapping tables are the code's data, the help is the CLI's, and every sample run is
 * that command run again offline.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EXIT_CODES, exitCodeFor, usage } from "@harness/shared";
import { codeFences, containsRun, normalisedLines, readChapterCli, sourceLines } from "@harness/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { FORMAT_BOUND_BLOCKS } from "../src/keep-for-format.ts";
import { S09_OPTIONS } from "../src/main.ts";
import { CHAT_STOP_REASONS } from "../src/message-from-chat.ts";
import { RESPONSES_STOP_REASONS } from "../src/message-from-responses.ts";

const CHAPTER = join(import.meta.dirname, "..");
const REPO = join(CHAPTER, "..");
const CLI = readChapterCli(CHAPTER);
const READMES = ["README.md", "README.zh.md"] as const;
const S06_LOOP = join(REPO, "s06-hooks", "src", "agent-loop.ts");
const S09_LOOP = join(CHAPTER, "src", "agent-loop.ts");
const readme = (name: string) => readFileSync(join(CHAPTER, name), "utf8");

/** agentLoop in the source, from its doc comment to its closing brace, trailing whitespace trimmed. */
function agentLoopSource(): string {
  const lines = readFileSync(S09_LOOP, "utf8").split("\n");
  const signature = lines.findIndex((line) => line.startsWith("export async function agentLoop("));
  const start = lines.slice(0, signature).lastIndexOf("/**");
  const end = lines.indexOf("}", signature);
  return lines
    .slice(start, end + 1)
    .map((line) => line.trimEnd())
    .join("\n");
}

/** The lines a diff removes or adds, each with its sign, trailing whitespace trimmed. */
function changedLines(diff: string): string[] {
  return diff
    .split("\n")
    .filter((line) => /^[-+]/.test(line) && !/^(?:---|\+\+\+) /.test(line))
    .map((line) => line.trimEnd());
}

/** The rows of the markdown table whose header row matches `first`, as trimmed cells. */
function tableRows(markdown: string, first: RegExp): string[][] {
  const table = [...markdown.matchAll(/^(?:\|.*\n)+/gm)].map((m) => m[0]).find((t) => first.test(t)) ?? "";
  return table
    .trimEnd()
    .split("\n")
    .slice(2)
    .map((row) =>
      row
        .slice(1, -1)
        .split("|")
        .map((cell) => cell.trim()),
    );
}

const code = (cell: string) => /`([^`]+)`/.exec(cell)?.[1] ?? cell;

describe.each(READMES)("%s", (name) => {
  const text = readme(name);

  it("quotes every ts excerpt verbatim from the sources", () => {
    const sources = sourceLines([join(CHAPTER, "src")]);
    const excerpts = codeFences(text, "ts");
    expect(excerpts.length).toBeGreaterThanOrEqual(10);
    for (const excerpt of excerpts) {
      const found = sources.some((source) => containsRun(source.lines, normalisedLines(excerpt)));
      expect(found, `not found in the sources:\n${excerpt}`).toBe(true);
    }
  });

  it("shows the whole loop: one ts block that is agentLoop as the source has it, doc comment included", () => {
    const whole = codeFences(text, "ts").filter((block) => block.includes("export async function agentLoop("));
    expect(whole).toEqual([`${agentLoopSource()}\n`]);
  });

  it("shows the real diff of s06's loop and this one, every change of it", () => {
    const run = spawnSync("git", ["diff", "--no-index", "--no-color", "--", S06_LOOP, S09_LOOP], { encoding: "utf8" });
    expect(run.status, run.stderr).toBe(1);
    const [diff] = codeFences(text, "diff");
    const real = run.stdout.split("\n").slice(4).join("\n");
    expect(diff.trimEnd()).toBe(real.trimEnd());
    expect(changedLines(diff)).toContain(
      "+    const response = await iteration.modelCall(adapter.streamTurn(request, signal, iteration.observe(observer)));",
    );
  });

  it("shows the finish-reason table as CHAT_STOP_REASONS maps it", () => {
    const rows = tableRows(text, /^\| `finish_reason`/);
    const mapped = rows.filter((row) => row[0].startsWith("`"));
    expect(mapped.map((row) => [code(row[0]), code(row[1])])).toEqual(Object.entries(CHAT_STOP_REASONS));
    expect(rows).toHaveLength(mapped.length + 1); // and the row for everything else
  });

  it("shows the incomplete reasons as RESPONSES_STOP_REASONS maps them", () => {
    const rows = tableRows(text, /^\| (?:status and reason|状态与原因)/);
    const incomplete = rows.filter((row) => /^`incomplete`, `/.test(row[0]) || /^`incomplete`，`/.test(row[0]));
    expect(incomplete.map((row) => [/`(\w+)`$/.exec(row[0])?.[1], code(row[1])])).toEqual(
      Object.entries(RESPONSES_STOP_REASONS),
    );
  });

  it("shows what crosses providers as FORMAT_BOUND_BLOCKS has it", () => {
    const rows = tableRows(text, /^\| (?:block in the history|历史里的块)/);
    const formats = ["anthropic", "openai-chat", "openai-responses"];
    const sent = (cell: string) => !/^(?:left out|不发送)$/.test(cell);
    for (const [kind, bound] of Object.entries(FORMAT_BOUND_BLOCKS)) {
      const label = kind.startsWith("reasoning:") ? kind.replace("reasoning:", "") : kind;
      const row = rows.find((r) => r[0].includes(`\`${label}\``));
      expect(row, kind).toBeDefined();
      expect(
        formats.filter((_, i) => sent(row?.[i + 1] ?? "")),
        kind,
      ).toEqual([bound.format]);
    }
  });

  it("shows the CLI's own --help text, and each exit status as the CLI maps it", () => {
    expect(codeFences(text, "text")).toContain(`${usage(CLI.command, CLI.summary, S09_OPTIONS, CLI.exitCodes)}\n`);
    const rows = [...text.matchAll(/^\|\s*(\d+)\s*\|\s*(.+?)\s*\|$/gm)];
    expect(rows.map((row) => Number(row[1]))).toEqual([0, 2, 3, 1, 130]);
    for (const [, status, meaning] of rows) {
      const reason = /^`(\w+)`/.exec(meaning)?.[1] ?? "error";
      expect(exitCodeFor(reason, CLI.exitCodes), meaning).toBe(Number(status));
    }
    expect(rows.length).toBe(Object.keys(EXIT_CODES).length);
  });
});

describe("the chapter text", () => {
  it("gives the same code in English and Chinese", () => {
    const [en, zh] = READMES.map(readme);
    for (const lang of ["ts", "text", "sh", "diff", "mermaid"]) {
      expect(codeFences(zh, lang), lang).toEqual(codeFences(en, lang));
    }
  });
});

/**
 * The sample runs, each in a fresh sample directory made by the text's setup block (its path the
 * same length, as the scripted model estimates tokens from the request's size and the system
 * prompt names the directory). A ```sh block holding one command followed by a ```text block is
 * that command's output: stdout, or stdout and stderr together where the command says `2>&1`.
 */
describe("the sample runs in README.md", () => {
  const text = readme("README.md");
  const SAMPLE_DIR = "/tmp/s09-sample";
  const setup = codeFences(text, "sh").find((block) => block.startsWith(`mkdir -p ${SAMPLE_DIR} `)) ?? "";
  const samples = [...text.matchAll(/^```sh\n((?:\w+=\S+ )*pnpm s\d\d [^\n]*)\n```\n\n```text\n([\s\S]*?)^```$/gm)].map(
    ([, command, output]) => ({ command, output }),
  );
  const scripts = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")).scripts as Record<string, string>;
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  function sampleDir(): string {
    const dir = mkdtempSync("/tmp/s09-");
    dirs.push(dir);
    expect(dir.length).toBe(SAMPLE_DIR.length);
    const made = spawnSync("sh", ["-c", setup.replaceAll(SAMPLE_DIR, dir)], { encoding: "utf8" });
    expect(made.status, made.stderr).toBe(0);
    return dir;
  }

  it("has a setup block and the samples: s06 with only an OpenAI key, then s09 on two formats", () => {
    expect(setup).not.toBe("");
    expect(samples.map((s) => /pnpm (s\d\d)/.exec(s.command)?.[1])).toEqual(["s06", "s09", "s09"]);
  });

  it.each(samples)("shows what `$command` prints", { timeout: 60_000 }, async ({ command, output }) => {
    const dir = sampleDir();
    const both = command.endsWith(" 2>&1");
    const all = words(command.replace(/ 2>&1$/, ""));
    const assignments = all.filter((word, i) => /^\w+=/.test(word) && all.slice(0, i).every((w) => /^\w+=/.test(w)));
    const [, chapter, ...rest] = all.slice(assignments.length);
    const env = Object.fromEntries(assignments.map((a) => [a.slice(0, a.indexOf("=")), a.slice(a.indexOf("=") + 1)]));
    const [program, ...args] = scripts[chapter].split(" ");
    const ran = await run(program, [...args, ...rest.map((arg) => arg.replaceAll(SAMPLE_DIR, dir))], env);
    const shown = both ? `${ran.stderr}${ran.stdout}` : ran.stdout;
    expect(shown.replaceAll(dir, SAMPLE_DIR)).toBe(output);
  });
});

/** A command line split into words, "..." and '...' quoting undone (all the samples use). */
function words(command: string): string[] {
  return [...command.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]);
}

/** Run a CLI from the repository root with no terminal and no provider's variables but `extra`. */
function run(
  program: string,
  args: string[],
  extra: Record<string, string>,
): Promise<{ stdout: string; stderr: string }> {
  const home = mkdtempSync(join(tmpdir(), "s09-home-"));
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !/^(ANTHROPIC_|OPENAI_|HARNESS_|MODEL_ID$|INIT_CWD$|DEBUG$)/.test(name),
    ),
  );
  const child = spawn(program, args, {
    cwd: REPO,
    env: { ...env, NO_COLOR: "1", HARNESS_HOME: home, ...extra },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) =>
    child.on("close", (status) => {
      rmSync(home, { recursive: true, force: true });
      if (status === 0) resolve({ stdout, stderr });
      else reject(new Error(`exit ${status}: ${stderr}`));
    }),
  );
}
