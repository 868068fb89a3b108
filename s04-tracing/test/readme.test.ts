/**
 * The chapter text against the code: the chapter-text suite (every ```ts excerpt real, its lines
 * in order in one file of src/; the whole loop the source's; the diff of s03's loop against this
 * one real and whole; the help the CLI's; the same code in both languages); then this chapter's
 * own: the sample record has the fields a real record has, the numbers the text states are the
 * code's, the build exercise's stub is the manifest's, the options page is linked, and every
 * sample run is the output of that command run again offline, after the text's own reset.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { exitCodeFor, REPO_ROOT, runChapterCli, usage } from "@harness/cli";
import { ALL_TOOLS, toApiTool } from "@harness/s02-tool-dispatch";
import { reply, textReply, toolUse } from "@harness/scripted-model";
import { historyProblems } from "@harness/shared";
import {
  type ChapterMain,
  chapterTextSuite,
  codeFences,
  commandWords,
  containsRun,
  mainOfScript,
  normalisedLines,
  runInProcess,
} from "@harness/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { chapter as s03Chapter } from "../../s03-streaming/src/main.ts";
import { secretsOf } from "../src/flags.ts";
import { projectSlug } from "../src/harness-data-dir.ts";
import { chapter, main } from "../src/main.ts";
import { redactLine } from "../src/redact.ts";
import { isValidTraceId, TRACE_FORMAT } from "../src/trace-record.ts";
import { traceDir } from "../src/trace-writer.ts";
import { runTraceCli } from "../src/viewer/trace-cli.ts";
import { exercises } from "./exercises.ts";
import { scriptedTrace } from "./scripted-trace.ts";

const CHAPTER = join(REPO_ROOT, "s04-tracing");
const SRC = join(CHAPTER, "src");
const READMES = ["README.md", "README.zh.md"];
const REPO = REPO_ROOT;
const S03_LOOP = join(REPO, "s03-streaming", "src", "agent-loop.ts");
const S04_LOOP = join(SRC, "agent-loop.ts");

const text = (name: string) => readFileSync(join(CHAPTER, name), "utf8");
const SCRIPTS = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")).scripts as Record<string, string>;
/** The programs whose samples run in this process (`mainOfScript` checks the script runs that file). */
const MAINS: Record<string, ChapterMain> = {
  "s03-streaming/src/main.ts": (argv, io) => runChapterCli(s03Chapter, argv, io),
  "s04-tracing/src/main.ts": main,
  "s04-tracing/src/viewer/trace-cli.ts": async (argv, io) => runTraceCli(argv, io),
};

/** Every key path of a JSON value, arrays read through their first element. */
function keyPaths(value: unknown, prefix = ""): string[] {
  if (Array.isArray(value)) return value.length ? keyPaths(value[0], `${prefix}[]`) : [`${prefix}[]`];
  if (value === null || typeof value !== "object") return [prefix];
  return Object.entries(value).flatMap(([key, v]) => [`${prefix}.${key}`, ...keyPaths(v, `${prefix}.${key}`)]);
}

chapterTextSuite({
  chapter: CHAPTER,
  excerpts: 4,
  wholeLoop: {},
  diffs: [{ label: "s03's loop against this one", hunks: 5, from: S03_LOOP, to: S04_LOOP }],
  cli: { chapter, previous: s03Chapter, usage, exitCodeFor },
});

describe.each(READMES)("%s", (name) => {
  const markdown = text(name);

  it("shows the build exercise's stub (a typescript block) as test/exercises.ts makes it", () => {
    const build = exercises.find((exercise) => exercise.kind === "build");
    expect(build).toBeDefined();
    const { file, find, replace } = build as (typeof exercises)[number];
    const stubbed = readFileSync(join(CHAPTER, file), "utf8").replace(find, replace);
    const stubs = codeFences(markdown, "typescript");
    expect(stubs).toHaveLength(1);
    expect(normalisedLines(stubs[0])).toEqual(normalisedLines(replace));
    expect(containsRun(normalisedLines(stubbed), normalisedLines(stubs[0]))).toBe(true);
  });

  it("names --trace, the one option s04 adds, in Try it, and links the options page for the rest", () => {
    const tryIt = markdown.split(name === "README.md" ? "\n## Try it\n" : "\n## 动手试试\n")[1] ?? "";
    expect(tryIt).toContain("`--trace`");
    expect(tryIt).toContain(name === "README.md" ? "](../docs/options.md)" : "](../docs/options.zh.md)");
  });

  it("shows a sample record, and the next record's request, with exactly the fields real ones have", async () => {
    const blocks = codeFences(markdown, "json").map((block) => JSON.parse(block));
    const sample = blocks.find((block) => block.type === "iteration");
    const nextRequest = blocks.find((block) => block.n === 2);
    const { writer, messages } = await scriptedTrace([
      reply([toolUse("read_file", { path: "notes.txt" })]),
      textReply("Done."),
    ]);
    // the lines as written
    const [first, second] = readFileSync(writer.path, "utf8")
      .split("\n")
      .map((line) => JSON.parse(line || "null"));
    const relevant = (paths: string[]) =>
      // the message and tool shapes are the API's, not this chapter's
      [
        ...new Set(
          paths.filter(
            (p) => !/^(\.request)?\.(messages|tools)\[\]\./.test(p) && !/^\.response\.content\[\]\./.test(p),
          ),
        ),
      ].sort();
    expect(relevant(keyPaths(sample))).toEqual(relevant(keyPaths(first)));
    expect(sample.version).toBe(TRACE_FORMAT);
    expect(relevant(keyPaths(nextRequest))).toEqual(relevant(keyPaths(second.request)));
    expect(nextRequest).toMatchObject({ n: 2, base: 1, keep: 1 });
    expect(second.request).toMatchObject({ n: 2, base: 1, keep: 1 });
    // offline, the model that answered is the scripted one, whatever the request named
    expect(sample.response.model).toBe(first.response.model);
    expect(historyProblems(messages)).toEqual([]);
  });

  it("states the numbers the code uses", () => {
    // redaction: secrets of 8 characters or more; key shapes of sk-ant- and 8 or more characters
    expect(secretsOf({ ANTHROPIC_API_KEY: "1234567" })).not.toContain("1234567");
    expect(secretsOf({ ANTHROPIC_API_KEY: "12345678" })).toContain("12345678");
    expect(redactLine("sk-ant-1234567", [])).toBe("sk-ant-1234567");
    expect(redactLine("sk-ant-12345678", [])).toBe("[REDACTED]");
    // ids: at most 100 characters
    expect(isValidTraceId("a".repeat(100))).toBe(true);
    expect(isValidTraceId("a".repeat(101))).toBe(false);
    // three kinds of line
    expect(readFileSync(join(SRC, "trace-record.ts"), "utf8").match(/^ {2}type: "\w+";$/gm)).toHaveLength(3);
    // six tool schemas of about 3 KB
    expect(ALL_TOOLS).toHaveLength(6);
    expect(Math.round(JSON.stringify(ALL_TOOLS.map(toApiTool)).length / 1000)).toBe(3);
    // the benchmarks' targets
    const scenario = (file: string) => readFileSync(join(REPO_ROOT, "bench", "scenarios", file), "utf8");
    expect(scenario("tracing-overhead.ts")).toMatch(/TARGET_OVERHEAD = 0\.02;/);
    expect(scenario("tracing-overhead.ts")).toMatch(/ITERATIONS = 1000;/);
    expect(scenario("trace-view.ts")).toMatch(/TARGET_MS = 1000;/);
    expect(scenario("trace-view.ts")).toMatch(/ITERATIONS = 1000;/);

    // where traces live: a project's slug as the text shows it
    expect(markdown).toContain("~/.harness/projects/<project>/traces/<id>.jsonl");
    expect(markdown).toContain(`\`/work/main\` → \`${projectSlug("/work/main")}\``);
    expect(traceDir("/work/main", { HARNESS_HOME: "/h" })).toBe(
      join("/h", "projects", projectSlug("/work/main"), "traces"),
    );
    // the size benchmark's run lengths
    expect(scenario("tracing-overhead.ts")).toMatch(/SIZE_TURNS = \[10, 100, 1000\];/);

    const numbers = markdown.replace(/,(\d{3})/g, "$1").replace(/\s+/g, " ");
    if (name === "README.md") {
      expect(numbers).toContain("shorter than 8 characters");
      expect(numbers).toContain("at least 8 key characters");
      expect(numbers).toContain("at most 100 characters");
      expect(numbers).toContain("three kinds of line");
      expect(numbers).toContain("six tool");
      expect(numbers).toContain("about 3 KB");
      expect(numbers).toContain("under 2% of loop time");
      expect(numbers).toContain("1000 iterations");
      expect(numbers).toContain("under 1 s");
      expect(numbers).toContain("10, 100 and 1000 turns");
    } else {
      expect(numbers).toContain("少于 8 个字符");
      expect(numbers).toContain("至少 8 个");
      expect(numbers).toContain("最多 100 个字符");
      expect(numbers).toContain("三种");
      expect(numbers).toContain("六个工具");
      expect(numbers).toContain("约 3 KB");
      expect(numbers).toContain("2%");
      expect(numbers).toContain("1000 次迭代");
      expect(numbers).toContain("1 秒");
      expect(numbers).toContain("10、100 和 1000 轮");
    }
  });
});

/**
 * The sample runs: a ```sh block holding one `pnpm s03 ...`, `pnpm s04 ...` or `pnpm trace ...`
 * command, followed by a ```text or ```json block, is that command's output. They are run again
 * offline, in order (the tracer reads what the runs before it wrote), in a fresh copy of the
 * sample directory the text's setup block makes, with a harness home of their own. What is
 * normalised: the directory's path (the copy's has the same length, as the scripted model
 * estimates tokens from the request's size and the system prompt names the directory) and its
 * project name, the harness home (shown as ~/.harness), clock times, dates and durations. The
 * json sample is the messages of the request `--request N` prints.
 */
describe("the sample runs in README.md", () => {
  const markdown = text("README.md");
  const SAMPLE_DIR = "/tmp/s04-sample";
  const setup = codeFences(markdown, "sh").find((block) => block.startsWith(`mkdir -p ${SAMPLE_DIR}\n`));
  /** Try it's reset: the sample directory made again, and its project's traces removed. */
  const reset = codeFences(markdown, "sh").find((block) => block.startsWith("rm -rf ~/.harness/projects/"));
  const samples = [
    ...markdown.matchAll(
      /^```sh\n(pnpm (?:s0\d|trace) [^\n]*)\n```\n\n(?:(?!```)[\s\S])*?```(text|json)\n([\s\S]*?)^```$/gm,
    ),
  ].map(([, command, lang, output]) => ({ command, lang, output }));
  const dir = mkdtempSync("/tmp/s04-");
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("has a setup block, a reset that ends with it, and the samples: s03's blind spot, then s04's trace read back", () => {
    expect(setup).toBeDefined();
    expect(reset).toBe(`rm -rf ~/.harness/projects/${projectSlug(SAMPLE_DIR)}\n${setup}`);
    expect(samples.map((s) => s.command.split(" ").slice(1, 3).join(" "))).toEqual([
      "s03 --cwd",
      "s04 --trace=turn2",
      "trace show",
      "trace show",
      "trace list",
    ]);
  });

  it("shows what each command prints", { timeout: 120_000 }, async () => {
    expect(dir.length).toBe(SAMPLE_DIR.length);
    const home = join(dir, ".home");
    // the reset (which makes the directory as the setup does), run where this test plays: its home, its directory
    const script = (reset ?? "")
      .replace(`~/.harness/projects/${projectSlug(SAMPLE_DIR)}`, join(home, "projects", projectSlug(dir)))
      .replaceAll(SAMPLE_DIR, dir);
    const made = spawnSync("sh", ["-c", script], { encoding: "utf8" });
    expect(made.status, made.stderr).toBe(0);
    for (const { command, lang, output } of samples) {
      const [, chapter, ...rest] = commandWords(command);
      const stdout = await run(
        SCRIPTS[chapter],
        rest.map((arg) => arg.replaceAll(SAMPLE_DIR, dir)),
        home,
      );
      if (lang === "json") {
        expect(JSON.parse(output), command).toEqual(JSON.parse(stdout.replaceAll(dir, SAMPLE_DIR)).messages);
        continue;
      }
      const normal = (out: string) =>
        out
          .replaceAll(home, "~/.harness")
          .replaceAll(projectSlug(dir), projectSlug(SAMPLE_DIR))
          .replaceAll(dir, SAMPLE_DIR)
          .replace(/\d\d:\d\d:\d\d\.\d{3}/g, "HH:MM:SS.mmm")
          .replace(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/g, "YYYY-MM-DD HH:MM:SS")
          .replace(/\d+ ms/g, "N ms");
      expect(normal(stdout), command).toBe(normal(output));
    }
  });
});

/**
 * Run a root package.json script with `args` from the repository root, with no key, no endpoint
 * and the harness home given: in this process when MAINS has what it runs, else in a child; its stdout.
 */
async function run(script: string, args: string[], home: string): Promise<string> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !/^(ANTHROPIC_|MODEL_ID$|INIT_CWD$|DEBUG$|HARNESS_TRACE_DIR$)/.test(name),
    ),
  );
  const here = mainOfScript(script, MAINS);
  if (here) {
    const ran = await runInProcess(here, args, { ...env, NO_COLOR: "1", HARNESS_HOME: home });
    if (ran.code !== 0) throw new Error(`exit ${ran.code}: ${ran.stderr}`);
    return ran.stdout;
  }
  const [program, ...scriptArgs] = script.split(" ");
  const child = spawn(program, [...scriptArgs, ...args], {
    cwd: REPO,
    env: { ...env, NO_COLOR: "1", HARNESS_HOME: home },
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
    child.on("close", (code) => (code === 0 ? resolve(stdout) : reject(new Error(`exit ${code}: ${stderr}`)))),
  );
}
