/**
 * The chapter text cannot drift from the code: every ```ts excerpt is found verbatim in the
 * sources, the whole loop is the source's, every ```diff hunk is a real piece of the diff between
 * s06's loop and this one and no change is left out, the help and the exit table are the CLI's,
 * the transcript it shows reads as one, and every sample run is that command run again offline
 * (the kill -9 included), in the order the text runs them.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EXIT_CODES, exitCodeFor, projectSlug, REPO_ROOT, usage } from "@harness/shared";
import { codeFences, containsRun, normalisedLines, readChapterCli, sourceLines } from "@harness/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { S07_OPTIONS } from "../src/main.ts";
import { historyOf, readTranscript } from "../src/read-transcript.ts";
import { killGroup, processes, until } from "./run-cli.ts";

const CHAPTER = join(REPO_ROOT, "s07-sessions");
const CLI = readChapterCli(CHAPTER);
const READMES = ["README.md", "README.zh.md"] as const;
const S06_LOOP = join(REPO_ROOT, "s06-hooks", "src", "agent-loop.ts");
const S07_LOOP = join(CHAPTER, "src", "agent-loop.ts");
const SOURCES = sourceLines([join(CHAPTER, "src")]);

const readme = (name: string) => readFileSync(join(CHAPTER, name), "utf8");
const loopFile = (path: string) => readFileSync(path, "utf8");

/** agentLoop in the source, from its doc comment to its closing brace, trailing whitespace trimmed. */
function agentLoopSource(): string {
  const lines = loopFile(S07_LOOP).split("\n");
  const signature = lines.findIndex((line) => line.startsWith("export async function agentLoop("));
  const start = lines.slice(0, signature).lastIndexOf("/**");
  const end = lines.indexOf("}", signature);
  return lines
    .slice(start, end + 1)
    .map((line) => line.trimEnd())
    .join("\n");
}

/** A diff hunk's two sides: the lines it removes with its context, and the lines it adds with its context. */
function hunkSides(hunk: string): { before: string[]; after: string[] } {
  const lines = hunk.split("\n").filter((line) => line !== "");
  const side = (keep: string) =>
    normalisedLines(
      lines
        .filter((line) => line[0] === " " || line[0] === keep)
        .map((line) => line.slice(1))
        .join("\n"),
    );
  return { before: side("-"), after: side("+") };
}

/** The lines a diff removes or adds, each with its sign, trailing whitespace trimmed. */
function changedLines(diff: string): string[] {
  return diff
    .split("\n")
    .filter((line) => /^[-+]/.test(line) && !/^(?:---|\+\+\+) /.test(line))
    .map((line) => line.trimEnd());
}

describe.each(READMES)("%s", (name) => {
  const text = readme(name);

  it("quotes every ts excerpt verbatim from the sources", () => {
    const excerpts = codeFences(text, "ts");
    expect(excerpts.length).toBeGreaterThanOrEqual(7);
    for (const excerpt of excerpts) {
      const found = SOURCES.some((source) => containsRun(source.lines, normalisedLines(excerpt)));
      expect(found, `not found in src/:\n${excerpt}`).toBe(true);
    }
  });

  it("shows the whole loop: one ts block that is agentLoop as the source has it, doc comment included", () => {
    const whole = codeFences(text, "ts").filter((block) => block.includes("export async function agentLoop("));
    expect(whole).toEqual([`${agentLoopSource()}\n`]);
  });

  it("shows diff hunks that are real: s06's loop on one side, this chapter's on the other", () => {
    const [s06, s07] = [normalisedLines(loopFile(S06_LOOP)), normalisedLines(loopFile(S07_LOOP))];
    const [diff] = codeFences(text, "diff");
    const hunks = diff.split(/^@@.*$/m).filter((h) => h.trim() !== "" && !h.startsWith("--- "));
    expect(hunks.length).toBeGreaterThanOrEqual(8);
    for (const hunk of hunks) {
      const { before, after } = hunkSides(hunk);
      expect(containsRun(s06, before), `not in s06's loop:\n${before.join("\n")}`).toBe(true);
      expect(containsRun(s07, after), `not in s07's loop:\n${after.join("\n")}`).toBe(true);
    }
  });

  it("leaves out no change of the real diff", () => {
    const run = spawnSync("git", ["diff", "--no-index", "--no-color", "--", S06_LOOP, S07_LOOP], { encoding: "utf8" });
    expect(run.status, run.stderr).toBe(1);
    const shown = changedLines(codeFences(text, "diff")[0]);
    const real = changedLines(run.stdout);
    expect(real.length).toBeGreaterThan(0);
    expect(real.filter((line) => !shown.includes(line))).toEqual([]);
  });

  it("shows the CLI's own --help text", () => {
    expect(codeFences(text, "text")).toContain(`${usage(CLI.command, CLI.summary, S07_OPTIONS, CLI.exitCodes)}\n`);
  });

  it("lists each exit status as the CLI maps it", () => {
    const rows = [...text.matchAll(/^\|\s*(\d+)\s*\|\s*(.+?)\s*\|$/gm)];
    expect(rows.map((row) => Number(row[1]))).toEqual([0, 2, 3, 1, 130]);
    for (const [, status, meaning] of rows) {
      const reason = /^`(\w+)`/.exec(meaning)?.[1] ?? "error";
      expect(exitCodeFor(reason, CLI.exitCodes), meaning).toBe(Number(status));
    }
    expect(rows.length).toBe(Object.keys(EXIT_CODES).length);
  });

  it("shows a transcript that reads as one: a header, then messages that follow one another", () => {
    const [sample] = codeFences(text, "json");
    const path = join(mkdtempSync(join(tmpdir(), "s07-readme-")), `${JSON.parse(sample.split("\n")[0]).id}.jsonl`);
    try {
      writeFileSync(path, sample);
      const transcript = readTranscript(path);
      expect(transcript.torn).toBeUndefined();
      expect(historyOf(transcript.records).map((m) => m.role)).toEqual(["user", "assistant"]);
    } finally {
      rmSync(join(path, ".."), { recursive: true, force: true });
    }
  });
});

describe("the chapter text", () => {
  it("gives the same code in English and Chinese", () => {
    const [en, zh] = READMES.map(readme);
    const strip = (block: string) => block.replace(/\s+#.*$/gm, "").replace(/^@@.*$/gm, "@@"); // comments are translated
    for (const lang of ["ts", "json", "text", "sh", "diff"]) {
      expect(codeFences(zh, lang).map(strip), lang).toEqual(codeFences(en, lang).map(strip));
    }
  });
});

/**
 * The sample runs, in the order the text runs them, in a fresh copy of the sample directory (its
 * path the same length, as the scripted model estimates tokens from the request's size and the
 * system prompt names the directory) with a harness home of its own. What varies from run to run
 * is normalised: the directory, the home, session ids (in order of appearance), dates and times.
 */
describe("the sample runs in README.md", () => {
  const text = readme("README.md");
  const SAMPLE_DIR = "/tmp/s07-sample";
  const scripts = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")).scripts as Record<string, string>;
  const sh = codeFences(text, "sh");
  const setup = sh.find((block) => block.startsWith(`mkdir -p ${SAMPLE_DIR} `)) ?? "";
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  /** A fresh sample directory made by the setup block's first line, and a home. */
  function sampleDir(): { dir: string; home: string } {
    const dir = mkdtempSync("/tmp/s07-");
    const home = realpathSync(mkdtempSync(join(tmpdir(), "s07-readme-home-")));
    dirs.push(dir, home);
    expect(dir.length).toBe(SAMPLE_DIR.length);
    const made = spawnSync("sh", ["-c", setup.split("\n")[0].replaceAll(SAMPLE_DIR, dir)], { encoding: "utf8" });
    expect(made.status, made.stderr).toBe(0);
    return { dir, home };
  }

  /** The block of text right after the ```sh block that holds `command`. */
  function outputOf(command: string, nth = 0): string {
    const fence = `\n${command}\n\`\`\`\n\n\`\`\`text\n`; // the command ends its sh block
    const start = text.indexOf(fence);
    expect(start, `no sample of ${command}`).toBeGreaterThan(-1);
    const rest = text.slice(start + fence.length);
    const outputs = [rest.slice(0, rest.indexOf("```\n"))];
    // a run's stderr, when the text shows it: the next text block after some prose
    const after = rest.slice(rest.indexOf("```\n") + 4);
    const next = /^(?:[^`\n][^\n]*\n|\n)+```text\n([\s\S]*?)```\n/.exec(after);
    if (next?.[1].startsWith("Using ")) outputs.push(next[1]);
    return outputs[nth] ?? "";
  }

  /** Run one sample command (a `pnpm` script) in `dir` with `home` as HARNESS_HOME. */
  function start(command: string, dir: string, home: string) {
    const [, script, ...rest] = words(command);
    const [program, ...args] = scripts[script].split(" ");
    const child = spawn(program, [...args, ...rest.map((arg) => arg.replaceAll(SAMPLE_DIR, dir))], {
      cwd: REPO_ROOT,
      env: cleanEnv(home),
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    return { child, exited, stdout: () => stdout, stderr: () => stderr };
  }

  it("has the setup, the problem's two runs and the try-it sequence", () => {
    expect(setup).not.toBe("");
    const commands = sh
      .filter((block) => /^pnpm /.test(block))
      .map((block) => block.trim().split(" ").slice(0, 2).join(" "));
    expect(commands).toEqual([
      "pnpm s06",
      "pnpm s07",
      "pnpm s07",
      "pnpm s07",
      "pnpm s07",
      "pnpm sessions",
      "pnpm sessions",
    ]);
  });

  it("shows what s06 prints: an answer, then nothing to recall in a new run", { timeout: 60_000 }, async () => {
    const { dir, home } = sampleDir();
    const [first, second] = setup
      .split("\n")
      .slice(1, 2)
      .concat(sh.filter((b) => b.startsWith("pnpm s06 "))[0]?.trim());
    for (const command of [first, second]) {
      const run = start(command, dir, home);
      expect(await run.exited, run.stderr()).toBe(0);
      expect(run.stdout()).toBe(outputOf(command));
    }
  });

  it("shows what the try-it sequence prints, the kill -9 and the repair included", { timeout: 120_000 }, async () => {
    const { dir, home } = sampleDir();
    const ids = new Map<string, string>(); // a real id → the text's, in order of appearance
    const textIds = [...new Set(text.slice(text.indexOf("## Try it")).match(UUID) ?? [])];
    const times = (output: string) =>
      output
        .replace(/\d{4}-\d\d-\d\d([ T])\d\d:\d\d(?::\d\d(?:\.\d{3}Z)?)?/g, "DATE$1TIME")
        .replace(/(· )\d\d:\d\d:\d\d/g, "$1TIME");
    /** A real run's output as the text would show it. */
    const normalise = (output: string) => {
      for (const id of output.match(UUID) ?? []) if (!ids.has(id)) ids.set(id, textIds[ids.size]);
      let shown = output.replaceAll(
        join(home, "projects", projectSlug(dir)),
        `~/.harness/projects/${projectSlug(SAMPLE_DIR)}`,
      );
      shown = shown.replaceAll(dir, SAMPLE_DIR);
      for (const [real, shownId] of ids)
        shown = shown.replaceAll(real, shownId).replaceAll(real.slice(0, 8), shownId.slice(0, 8));
      return times(shown);
    };
    const expectOutput = (run: { stdout(): string; stderr(): string }, command: string) => {
      expect(normalise(run.stdout())).toBe(times(outputOf(command)));
      const stderr = outputOf(command, 1);
      if (stderr) expect(normalise(run.stderr())).toBe(times(stderr));
    };
    /** A command with the text's ids (or their first characters) put back to the real ones. */
    const real = (command: string) =>
      command.replace(/\b[0-9a-f]{4,}(?:-[0-9a-f-]*)?\b/g, (word) => {
        for (const [id, shownId] of ids) if (shownId.startsWith(word)) return id.slice(0, word.length);
        return word;
      });
    const commands = sh.filter((block) => /^pnpm (s07|sessions) /.test(block)).map((block) => block.trim());
    const [first, slow, recall, fork, list, show] = commands;

    let run = start(first, dir, home);
    expect(await run.exited).toBe(0);
    expectOutput(run, first);

    // the slow one, killed as the text kills it: the pid in the session's lock file
    run = start(slow, dir, home);
    let sleeper: { pgid: number } | undefined;
    await until("sleep 30 to run", () => {
      sleeper = processes().find((p) => p.ppid === run.child.pid && /sleep 30/.test(p.args));
      return sleeper !== undefined;
    });
    const kill = sh.find((block) => block.startsWith("kill -9 ")) ?? "";
    const lockGlob = kill
      .replace(/^kill -9 \$\(cat (.*)\)\n$/, "$1")
      .replace(`~/.harness/projects/${projectSlug(SAMPLE_DIR)}`, join(home, "projects", projectSlug(dir)));
    const killed = spawnSync("sh", ["-c", `kill -9 $(cat ${lockGlob})`], { encoding: "utf8" });
    expect(killed.status, killed.stderr).toBe(0);
    expect(await run.exited).toBe(null);
    killGroup(sleeper?.pgid);
    expect(normalise(run.stdout())).toBe(times(outputOf(slow)));

    for (const command of [recall, fork, list, show]) {
      run = start(real(command), dir, home);
      expect(await run.exited, run.stderr()).toBe(0);
      expectOutput(run, command);
    }
  });
});

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** A command line split into words, "..." and '...' quoting undone (all the samples use). */
function words(command: string): string[] {
  return [...command.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]);
}

/** The environment without the shell's key, endpoint and model, with a harness home of its own. */
function cleanEnv(home: string): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(ANTHROPIC_|HARNESS_|MODEL_ID$|INIT_CWD$|DEBUG$)/.test(name)),
  );
  return { ...env, NO_COLOR: "1", HARNESS_HOME: home };
}
