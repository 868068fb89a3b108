/**
 * The chapter text cannot drift from the code: the chapter-text suite (every ```ts excerpt in the
 * sources, the whole loop the source's, the diff of s06's loop against this one real and whole,
 * the help and the exit table the CLI's, the same code in both languages); then this chapter's
 * own: the transcript it shows reads as one, and every sample run is that command run again
 * offline (the kill -9 included), in the order the text runs them.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exitCodeFor, REPO_ROOT, usage } from "@harness/cli";
import { projectSlug } from "@harness/s04-tracing";
import {
  type ChapterMain,
  type CliRun,
  chapterTextSuite,
  cliRunner,
  codeFences,
  commandWords,
  mainOfScript,
  runInProcess,
  runSampleScript,
  sampleDirs,
  sampleRuns,
  until,
} from "@harness/testkit";
import { describe, expect, it } from "vitest";
import { chapter as s06Chapter, main as s06Main } from "../../s06-hooks/src/main.ts";
import { chapter, main } from "../src/main.ts";
import { historyOf, readTranscript } from "../src/read-transcript.ts";
import { killGroup, processes } from "./run-cli.ts";

const CHAPTER = join(REPO_ROOT, "s07-sessions");
const READMES = ["README.md", "README.zh.md"] as const;
const S06_LOOP = join(REPO_ROOT, "s06-hooks", "src", "agent-loop.ts");
const S07_LOOP = join(CHAPTER, "src", "agent-loop.ts");
const SCRIPTS = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")).scripts as Record<string, string>;
/** The CLIs whose samples run in this process (`mainOfScript` checks the script runs that file); `pnpm sessions` runs in a child. */
const MAINS: Record<string, ChapterMain> = { "s06-hooks/src/main.ts": s06Main, "s07-sessions/src/main.ts": main };

const readme = (name: string) => readFileSync(join(CHAPTER, name), "utf8");

chapterTextSuite({
  chapter: CHAPTER,
  excerpts: 8,
  wholeLoop: {},
  diffs: [{ label: "s06's loop against this one", hunks: 8, from: S06_LOOP, to: S07_LOOP }],
  cli: {
    chapter,
    previous: s06Chapter,
    usage,
    exitCodeFor,
    exitTable: ["final_answer", "max_turns", "max_tokens", "prompt_blocked", "aborted", "error"],
  },
});

describe.each(READMES)("%s", (name) => {
  const text = readme(name);

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

/**
 * The sample runs: s06's each in a fresh copy of the sample directory the setup block makes (its
 * path the same length, as the scripted model estimates tokens from the request's size and the
 * system prompt names the directory); s07's in one copy, with one harness home, in the order the
 * text runs them. What varies from run to run is normalised: the directory, the home, session ids
 * (in order of appearance), dates and times.
 */
describe("the sample runs in README.md", () => {
  const text = readme("README.md");
  const SAMPLE_DIR = "/tmp/s07-sample";
  const sh = codeFences(text, "sh");
  const setup = sh.find((block) => block.startsWith(`mkdir -p ${SAMPLE_DIR} `)) ?? "";
  const sampleDir = sampleDirs(SAMPLE_DIR, setup);
  const { cleanEnv, startProgram } = cliRunner("s07-sessions");

  /** The program and arguments of a sample command (a `pnpm` script), run in `dir`. */
  const programOf = (command: string, dir: string) => {
    const [, script, ...rest] = commandWords(command);
    const [program, ...args] = SCRIPTS[script].split(" ");
    return { program, args: [...args, ...rest.map((arg) => arg.replaceAll(SAMPLE_DIR, dir))] };
  };

  /** The block of text right after the ```sh block that holds `command`; `nth` 1: its stderr, when shown. */
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

  /** Start one sample command in `dir`, in its own process group (killed after the test), with `env`. */
  function start(command: string, dir: string, env: NodeJS.ProcessEnv) {
    const { program, args } = programOf(command, dir);
    const run = startProgram(program, args, env);
    run.child.stdin?.end();
    return run;
  }

  /** Run one sample command in `dir` to the end with `env`: in this process when MAINS has its program, else in a child. */
  async function run(command: string, dir: string, env: NodeJS.ProcessEnv): Promise<CliRun> {
    const [, script, ...rest] = commandWords(command);
    const main = mainOfScript(SCRIPTS[script], MAINS);
    if (main)
      return runInProcess(
        main,
        rest.map((arg) => arg.replaceAll(SAMPLE_DIR, dir)),
        env,
      );
    const child = start(command, dir, env);
    const code = await child.exited;
    return { code, stdout: child.stdout(), stderr: child.stderr() };
  }

  it("has the setup, the problem's two runs and the try-it sequence", () => {
    expect(setup).not.toBe("");
    const commands = sh.filter((block) => /^pnpm /.test(block)).map((block) => commandWords(block)[1]);
    expect(commands).toEqual(["s06", "s06", "s07", "s07", "s07", "s07", "sessions", "sessions"]);
  });

  it.each(sampleRuns(text).filter((sample) => sample.command.startsWith("pnpm s06 ")))(
    "shows what `$command` prints",
    { timeout: 60_000 },
    async ({ command, output }) => {
      const dir = sampleDir();
      const [, script, ...rest] = commandWords(command);
      const args = rest.map((arg) => arg.replaceAll(SAMPLE_DIR, dir));
      const { code, stdout, stderr } = await runSampleScript(SCRIPTS[script], args, MAINS);
      expect(code, stderr).toBe(0);
      expect(stdout.replaceAll(dir, SAMPLE_DIR)).toBe(output);
    },
  );

  it("shows what the try-it sequence prints, the kill -9 and the repair included", { timeout: 120_000 }, async () => {
    const dir = sampleDir();
    const env = cleanEnv();
    const home = env.HARNESS_HOME as string;
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
    const expectOutput = (ran: CliRun, command: string) => {
      expect(normalise(ran.stdout)).toBe(times(outputOf(command)));
      const stderr = outputOf(command, 1);
      if (stderr) expect(normalise(ran.stderr)).toBe(times(stderr));
    };
    /** A command with the text's ids (or their first characters) put back to the real ones. */
    const real = (command: string) =>
      command.replace(/\b[0-9a-f]{4,}(?:-[0-9a-f-]*)?\b/g, (word) => {
        for (const [id, shownId] of ids) if (shownId.startsWith(word)) return id.slice(0, word.length);
        return word;
      });
    const commands = sh.filter((block) => /^pnpm (s07|sessions) /.test(block)).map((block) => block.trim());
    const [first, slow, recall, fork, list, show] = commands;

    const ran = await run(first, dir, env);
    expect(ran.code, ran.stderr).toBe(0);
    expectOutput(ran, first);

    // the slow one, in a child, killed as the text kills it: the pid in the session's lock file
    const slowRun = start(slow, dir, env);
    let sleeper: { pgid: number } | undefined;
    await until("sleep 30 to run", () => {
      sleeper = processes().find((p) => p.ppid === slowRun.child.pid && /sleep 30/.test(p.args));
      return sleeper !== undefined;
    });
    const kill = sh.find((block) => block.startsWith("kill -9 ")) ?? "";
    const lockGlob = kill
      .replace(/^kill -9 \$\(cat (.*)\)\n$/, "$1")
      .replace(`~/.harness/projects/${projectSlug(SAMPLE_DIR)}`, join(home, "projects", projectSlug(dir)));
    const killed = spawnSync("sh", ["-c", `kill -9 $(cat ${lockGlob})`], { encoding: "utf8" });
    expect(killed.status, killed.stderr).toBe(0);
    expect(await slowRun.exited).toBe(null);
    killGroup(sleeper?.pgid);
    expect(normalise(slowRun.stdout())).toBe(times(outputOf(slow)));

    for (const command of [recall, fork, list, show]) {
      const ran = await run(real(command), dir, env);
      expect(ran.code, ran.stderr).toBe(0);
      expectOutput(ran, command);
    }
  });
});

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
