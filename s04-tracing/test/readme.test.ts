/**
 * The chapter text against the code: the chapter-text suite (every ```ts excerpt real, its lines
 * in order in one file of src/; the whole loop the source's; the diff of s03's loop against this
 * one real and whole; the help the CLI's; the same code in both languages); then this chapter's
 * own: the sample record has the fields a real record has, the numbers the text states are the
 * code's, the build exercise's stub is the manifest's, the options page is linked, and every
 * sample run is the output of that command run again offline, after the text's own reset.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { exitCodeFor, REPO_ROOT, usage } from "@harness/cli";
import { ALL_TOOLS, toApiTool } from "@harness/s02-tool-dispatch";
import { reply, textReply, toolUse } from "@harness/scripted-model";
import { historyProblems } from "@harness/shared";
import {
  chapterTextSuite,
  codeFences,
  containsRun,
  normalisedLines,
  runSamplesInOrder,
  shellBlocks,
} from "@harness/testkit";
import { describe, expect, it } from "vitest";
import { chapter as s03Chapter } from "../../s03-streaming/src/main.ts";
import { secretsOf } from "../src/flags.ts";
import { projectSlug } from "../src/harness-data-dir.ts";
import { chapter } from "../src/main.ts";
import { redactLine } from "../src/redact.ts";
import { isValidTraceId, TRACE_FORMAT } from "../src/trace-record.ts";
import { traceDir } from "../src/trace-writer.ts";
import { exercises } from "./exercises.ts";
import { scriptedTrace } from "./scripted-trace.ts";

const CHAPTER = join(REPO_ROOT, "s04-tracing");
const SRC = join(CHAPTER, "src");
const READMES = ["README.md", "README.zh.md"];
const REPO = REPO_ROOT;
const S03_LOOP = join(REPO, "s03-streaming", "src", "agent-loop.ts");
const S04_LOOP = join(SRC, "agent-loop.ts");

const text = (name: string) => readFileSync(join(CHAPTER, name), "utf8");

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
 * The sample runs, through testkit's `runSamplesInOrder` as a reader runs them: the problem's setup
 * block, s03's run, Try it's reset, then every `pnpm s04 ...` and `pnpm trace ...` command, in the
 * text's order (the tracer reads what the runs before it wrote), from the repository root, in one
 * copy of the sample directory and one harness home. A ```text block after a command is its stdout;
 * the ```json block is the messages of the request `--request N` prints. What is normalised: the
 * directory's path (the copy's has the same length, as the scripted model estimates tokens from the
 * request's size and the system prompt names the directory) and its project, the harness home
 * (shown as ~/.harness), clock times, dates and durations.
 */
describe("the sample runs in README.md", () => {
  const markdown = text("README.md");
  const SAMPLE_DIR = "/tmp/s04-sample";
  const blocks = shellBlocks(markdown);
  const setup = blocks.find(({ command }) => command.startsWith(`mkdir -p ${SAMPLE_DIR}\n`));
  /** Try it's reset: the sample directory made again, and its project's traces removed. */
  const reset = blocks.find(({ command }) => command.startsWith("rm -rf ~/.harness/projects/"));
  const samples = blocks.filter(
    (block) => block === setup || block === reset || /^pnpm (?:s0\d|trace) [^\n]*$/.test(block.command),
  );
  const request = samples.find(({ command }) => command.includes(" --request "));
  /** The messages of the request `--request N` prints: the ```json block after its command. */
  const after = `${request?.command}\n\`\`\`\n`;
  const messages = codeFences(markdown.slice(markdown.indexOf(after) + after.length), "json")[0];

  it("has a setup block, a reset that ends with it, and the samples: s03's blind spot, then s04's trace read back", () => {
    expect(setup).toBeDefined();
    expect(reset?.command).toBe(`rm -rf ~/.harness/projects/${projectSlug(SAMPLE_DIR)}\n${setup?.command}`);
    expect(samples.map((s) => s.command.split(/\s/).slice(1, 3).join(" "))).toEqual([
      `-p ${SAMPLE_DIR}`,
      "s03 --cwd",
      `-rf ~/.harness/projects/${projectSlug(SAMPLE_DIR)}`,
      "s04 --trace=turn2",
      "trace show",
      "trace show",
      "trace list",
    ]);
  });

  it("shows what each command prints, run in order in one directory and one home", { timeout: 120_000 }, () => {
    const runs = runSamplesInOrder({ samples, sampleDir: SAMPLE_DIR, setup: "", repoRoot: REPO, projectSlug });
    const normal = (lines: string[]) =>
      lines.map((line) =>
        line
          .replace(/\d\d:\d\d:\d\d\.\d{3}/g, "HH:MM:SS.mmm")
          .replace(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/g, "YYYY-MM-DD HH:MM:SS")
          .replace(/\d+ ms/g, "N ms"),
      );
    for (const run of runs) {
      expect(run.status, `${run.command}\n${run.stderr}`).toBe(0);
      if (run.command === request?.command) {
        expect(JSON.parse(messages), run.command).toEqual(JSON.parse(run.printed.join("\n")).messages);
        continue;
      }
      expect(normal(run.printed), run.command).toEqual(normal(run.shown));
    }
  });
});
