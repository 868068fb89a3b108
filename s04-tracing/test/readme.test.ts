/**
 * The chapter text against the code: every ```ts excerpt is real (its lines appear, in order, in
 * one file of src/), the sample record has the fields a real record has, and the numbers the text
 * states are the code's.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ALL_TOOLS, toApiTool } from "@harness/s02-tool-dispatch";
import { isValidHistory, projectSlug, REPO_ROOT, reply, textReply, toolUse } from "@harness/shared";
import { codeFences, containsRun, normalisedLines, sourceLines } from "@harness/testkit";
import { describe, expect, it } from "vitest";
import { knownSecrets, redactLine } from "../src/redact.ts";
import { isValidTraceId, TRACE_FORMAT } from "../src/trace-record.ts";
import { traceDir } from "../src/trace-writer.ts";
import { scriptedTrace } from "./scripted-trace.ts";

const CHAPTER = join(REPO_ROOT, "s04-tracing");
const SRC = join(CHAPTER, "src");
const READMES = ["README.md", "README.zh.md"];

const text = (name: string) => readFileSync(join(CHAPTER, name), "utf8");

/** Every key path of a JSON value, arrays read through their first element. */
function keyPaths(value: unknown, prefix = ""): string[] {
  if (Array.isArray(value)) return value.length ? keyPaths(value[0], `${prefix}[]`) : [`${prefix}[]`];
  if (value === null || typeof value !== "object") return [prefix];
  return Object.entries(value).flatMap(([key, v]) => [`${prefix}.${key}`, ...keyPaths(v, `${prefix}.${key}`)]);
}

describe.each(READMES)("%s", (name) => {
  const markdown = text(name);

  it("quotes only real code: each ts excerpt appears line for line in one file of src/", () => {
    const sources = sourceLines([SRC]);
    const excerpts = codeFences(markdown, "ts");
    expect(excerpts.length).toBeGreaterThanOrEqual(4);
    for (const excerpt of excerpts) {
      const found = sources.some((source) => containsRun(source.lines, normalisedLines(excerpt)));
      expect(found, `not in src/:\n${excerpt}`).toBe(true);
    }
  });

  it("shows a sample record, and the next record's request, with exactly the fields real ones have", async () => {
    const [sample, nextRequest] = codeFences(markdown, "json").map((block) => JSON.parse(block));
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
    expect(isValidHistory(messages)).toBe(true);
  });

  it("states the numbers the code uses", () => {
    // redaction: secrets of 8 characters or more; key shapes of sk-ant- and 8 or more characters
    expect(knownSecrets({ ANTHROPIC_API_KEY: "1234567" })).toEqual([]);
    expect(knownSecrets({ ANTHROPIC_API_KEY: "12345678" })).toContain("12345678");
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
