/**
 * The chapter text cannot drift from the code: the chapter-text suite (every ```ts excerpt in the
 * sources, the whole loop the source's, the diff of s06's loop against this one real and whole,
 * the lines of the options it adds the CLI's, the same code in both languages); then this
 * chapter's own: the transcript it shows reads as one, Try it starts from no sessions, and every
 * sample run is that command run again offline (the kill -9 included), in the order the text
 * runs them.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exitCodeFor, REPO_ROOT, usage } from "@harness/cli";
import { projectSlug } from "@harness/s04-tracing";
import { chapterTextSuite, codeFences, runSamplesInOrder, shellBlocks } from "@harness/testkit";
import { describe, expect, it } from "vitest";
import { chapter as s06Chapter } from "../../s06-hooks/src/main.ts";
import { chapter } from "../src/main.ts";
import { historyOf, readTranscript } from "../src/read-transcript.ts";

const CHAPTER = join(REPO_ROOT, "s07-sessions");
const READMES = ["README.md", "README.zh.md"] as const;
const S06_LOOP = join(REPO_ROOT, "s06-hooks", "src", "agent-loop.ts");
const S07_LOOP = join(CHAPTER, "src", "agent-loop.ts");

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
 * The sample runs, through testkit's `runSamplesInOrder` as a reader runs them: every ```sh block of
 * the text (the setup, s06's two runs, Try it's reset, s07's runs with the kill -9 from a second
 * terminal, the session reader), in its order, from the repository root, in one copy of the sample
 * directory (its path the same length, as the scripted model estimates tokens from the request's
 * size and the system prompt names the directory) and one harness home. A command's output is the
 * first ```text block after it (folded or not) before the next ```sh block; the one after that, when
 * it starts `Using `, is its stderr. What varies from run to run is normalised: the directory, the
 * home, session ids (in order of appearance), dates and times.
 */
describe("the sample runs in README.md", () => {
  const text = readme("README.md");
  const SAMPLE_DIR = "/tmp/s07-sample";

  /** The ```text blocks after the ```sh block that holds `command`, before the next ```sh block. */
  function outputsOf(command: string): string[] {
    const fence = `\n${command}\n\`\`\`\n`; // the command ends its sh block
    const start = text.indexOf(fence);
    expect(start, `no sample of ${command}`).toBeGreaterThan(-1);
    let rest = text.slice(start + fence.length);
    if (rest.includes("```sh\n")) rest = rest.slice(0, rest.indexOf("```sh\n"));
    return [...rest.matchAll(/^```text\n([\s\S]*?)^```\n/gm)].map((match) => match[1]);
  }

  const samples = shellBlocks(text).map(({ command }) => {
    const [output = "", stderr] = outputsOf(command);
    return {
      command,
      output,
      stderr: stderr?.startsWith("Using ") ? stderr : undefined,
      background: command.includes("sleep 30"), // killed from a second terminal by the next
    };
  });

  it("has the setup, the problem's two runs, the try-it reset and the try-it sequence", () => {
    expect(samples[0].command).toMatch(new RegExp(`^mkdir -p ${SAMPLE_DIR} `));
    expect(samples[3].command).toBe(`rm -rf ~/.harness/projects/${projectSlug(SAMPLE_DIR)}`);
    expect(samples.map((s) => s.command.split(" ")[1])).toEqual([
      "-p",
      "s06",
      "s06",
      "-rf",
      "s07",
      "s07",
      "-9",
      "s07",
      "s07",
      "sessions",
      "sessions",
    ]);
    expect(samples.filter((s) => s.background).map((s) => s.command)).toEqual([samples[5].command]);
  });

  it("shows what each prints, run in order, the kill -9 and the repair included", { timeout: 180_000 }, () => {
    const runs = runSamplesInOrder({ samples, sampleDir: SAMPLE_DIR, setup: "", repoRoot: REPO_ROOT, projectSlug });
    const times = (lines: string[]) =>
      lines.map((line) =>
        line
          .replace(/\d{4}-\d\d-\d\d([ T])\d\d:\d\d(?::\d\d(?:\.\d{3}Z)?)?/g, "DATE$1TIME")
          .replace(/(· )\d\d:\d\d:\d\d/g, "$1TIME"),
      );
    for (const [i, run] of runs.entries()) {
      expect(times(run.printed), run.command).toEqual(times(run.shown));
      const stderr = samples[i].stderr;
      if (stderr) expect(times(run.stderr.split("\n")), run.command).toEqual(times(stderr.split("\n")));
      // the slow one is killed by the next: no status of its own
      expect(run.status, `${run.command}\n${run.stderr}`).toBe(samples[i].background ? null : 0);
    }
  });
});
