/**
 * The chapter text cannot drift from the code: the chapter-text suite (every ```ts excerpt in the
 * sources, the whole loop the source's, the ```diff of s02's loop against this one real and whole,
 * the help and the exit table the CLI's, the same code in both languages); then this chapter's
 * own: the diff shows exactly the lines the real one changes, the numbers are the code's, the
 * tables list what the code does, the options it names are the CLI's (the rest on the options
 * page), the build exercise's stub is the manifest's, and every sample of output is what the CLI
 * prints when the command shown above it runs (offline, in the text's order, in one temporary
 * directory that Try it's reset line makes again).
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_MODEL_TIMEOUT_SECONDS, exitCodeFor, usage } from "@harness/cli";
import { encodeSse } from "@harness/scripted-model";
import {
  chapterTextSuite,
  codeFences,
  containsRun,
  normalisedLines,
  proseOf,
  runInProcess,
  shellBlocks,
} from "@harness/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { chapter as s02Chapter } from "../../s02-tool-dispatch/src/main.ts";
import { chapter, main } from "../src/main.ts";
import { STREAM_RETRIES } from "../src/stream-turn.ts";
import { exercises } from "./exercises.ts";

const CHAPTER = join(import.meta.dirname, "..");
const REPO = join(CHAPTER, "..");
const READMES = ["README.md", "README.zh.md"] as const;
/** What the chapter's CLI declares: its name, its summary, the exit statuses of its own stop reasons. */
const CLI = { command: chapter.command, summary: chapter.summary, exitCodes: { ...chapter.exitCodes } };
/** The two chapters whose CLI the text runs: s02's in the problem, this one's everywhere else. */
const CHAPTER_FOLDERS: Record<string, string> = { s02: "s02-tool-dispatch", s03: "s03-streaming" };
/** The directory the text's commands play in; the test plays in a temporary one instead. */
const PLAY_DIR = "/tmp/s03-play";
const S02_LOOP = join(REPO, "s02-tool-dispatch", "src", "agent-loop.ts");
const S03_LOOP = join(CHAPTER, "src", "agent-loop.ts");

function readme(name: string): string {
  return readFileSync(join(CHAPTER, name), "utf8");
}

/** Every number a pattern captures. */
function captures(text: string, pattern: RegExp): number[] {
  return [...text.matchAll(pattern)].map((m) => Number(m[1]));
}

/** The numbers the text states, each stated at least once per language, always as the code's value. */
const NUMBERS: { what: string; value: number; patterns: RegExp[] }[] = [
  {
    what: "the retries of a stream that failed before any content (STREAM_RETRIES)",
    value: STREAM_RETRIES,
    patterns: [/`STREAM_RETRIES` \((\d+)\)/g, /up to `STREAM_RETRIES` \((\d+)\) times/g, /最多 (\d+) 次/g],
  },
  {
    what: "the longest wait for a silent stream, in timeouts (STREAM_RETRIES + 1)",
    value: STREAM_RETRIES + 1,
    patterns: [/(\d+) × the timeout/g, /超时的 (\d+) 倍/g],
  },
  {
    what: "the model timeout by default (DEFAULT_MODEL_TIMEOUT_SECONDS)",
    value: DEFAULT_MODEL_TIMEOUT_SECONDS,
    patterns: [/`--model-timeout`, default (\d+) s/g, /`--model-timeout`，默认 (\d+) 秒/g],
  },
  {
    what: "the exit status of an interrupted run (EXIT_CODES.aborted)",
    value: exitCodeFor("aborted", CLI.exitCodes),
    patterns: [/exits? with (\d+)/g, /退出码 (\d+)/g],
  },
];

function withoutTrailingSpace(text: string): string {
  return text
    .split("\n")
    .map((line) => line.trimEnd())
    .join("\n")
    .trimEnd();
}

/** The lines a diff removes and adds (`-…`, `+…`), whitespace normalised, file headers left out. */
function changedLines(diff: string): string[] {
  return diff
    .split("\n")
    .filter((line) => /^[-+]/.test(line) && !/^(---|\+\+\+) /.test(line))
    .map((line) => `${line[0]}${line.slice(1).trim().replace(/\s+/g, " ")}`)
    .filter((line) => line.length > 1);
}

/** The lines of a file's header (its first doc comment, one line or several), normalised as `changedLines` normalises them. */
function headerLines(file: string): string[] {
  const lines = readFileSync(join(REPO, file), "utf8").split("\n");
  const end = lines[0].endsWith("*/") ? 0 : lines.indexOf(" */");
  return lines.slice(0, end + 1).map((line) => line.trim().replace(/\s+/g, " "));
}

/** The real diff of the two loop files, without the changes to their header comments. */
function realLoopDiff(): string[] {
  const [before, after] = ["s02-tool-dispatch/src/agent-loop.ts", "s03-streaming/src/agent-loop.ts"];
  const run = spawnSync("git", ["diff", "--no-index", "--", before, after], { cwd: REPO, encoding: "utf8" });
  expect(run.status, run.stderr).toBe(1); // 1: the files differ
  const headers = { "-": headerLines(before), "+": headerLines(after) };
  return changedLines(run.stdout).filter((line) => !headers[line[0] as "-" | "+"].includes(line.slice(1)));
}

// ---------------------------------------------------------------------------------------------
// The samples: a ```sh block whose last line runs a chapter, followed at once by a ```text block
// of what the terminal showed. Prompts typed at the REPL are the text after `sNN >> `; Ctrl-C is
// pressed while `sleep 30` runs, and at a prompt the sample ends on.

interface Sample {
  command: string;
  transcript: string;
}

function samplesOf(markdown: string): Sample[] {
  const found: Sample[] = [];
  for (const match of markdown.matchAll(/^```sh\n([\s\S]*?)^```\n\n```text\n([\s\S]*?)^```$/gm)) {
    const command = match[1].trimEnd().split("\n").at(-1) ?? "";
    if (/^pnpm s0\d /.test(command)) found.push({ command, transcript: match[2] });
  }
  return found;
}

/** Split a command line into words, as sh does for the quoting the samples use ('…', "…"). */
function shellWords(line: string): string[] {
  return [...line.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]);
}

/** What a run prints that varies between runs: the token estimates (the prompt names the directory). */
function normalised(transcript: string): string {
  return withoutTrailingSpace(transcript.replace(/~\d+ in \/ ~\d+ out tokens/g, "~N in / ~N out tokens"));
}

/** The test's environment without keys, endpoints or a model id, so nothing reaches the network. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(ANTHROPIC_|MODEL_ID$|INIT_CWD$|DEBUG$)/.test(name)),
  );
  return { ...env, NO_COLOR: "1", HARNESS_HOME: tempDir("s03-readme-home-"), ...extra };
}

const made: string[] = [];
const children: ChildProcess[] = [];
const servers: { close(): void }[] = [];
afterAll(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  for (const server of servers.splice(0)) server.close();
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  made.push(dir);
  return dir;
}

/**
 * Run a sample's command as a reader would at a terminal, typing its prompts and pressing Ctrl-C
 * where it does; return what the terminal shows (the start line from stderr, then stdout with the
 * typed prompts echoed after each `sNN >> `) and the exit status.
 */
async function runSample(sample: Sample, dir: string): Promise<{ shown: string; code: number | null }> {
  const [pnpm, script, ...args] = shellWords(sample.command);
  expect(pnpm).toBe("pnpm");
  const main = join(REPO, CHAPTER_FOLDERS[script], "src", "main.ts");
  const prompt = `${script} >> `;
  const typed = [...sample.transcript.matchAll(new RegExp(`^${script} >> (.+)$`, "gm"))].map((m) => m[1]);
  const endsAtPrompt = sample.transcript.trimEnd().endsWith(prompt.trimEnd());
  const child = spawn(
    process.execPath,
    ["--import", "tsx", main, ...args.map((arg) => arg.replaceAll(PLAY_DIR, dir))],
    { cwd: REPO, env: cleanEnv(), stdio: ["pipe", "pipe", "pipe"] },
  );
  children.push(child);
  let stdout = "";
  let stderr = "";
  let sent = 0;
  let interrupts = 0;
  const count = (needle: string) => stdout.split(needle).length - 1;
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
    if (count("  bash: sleep 30\n") > interrupts && stdout.endsWith("  bash: sleep 30\n")) {
      interrupts++;
      child.kill("SIGINT"); // the command that would run for 30 s
    } else if (count(prompt) > sent) {
      if (sent < typed.length) child.stdin.write(`${typed[sent]}\n`);
      else if (endsAtPrompt)
        child.kill("SIGINT"); // Ctrl-C at the prompt
      else child.stdin.end();
      sent++;
    }
  });
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  const [start, ...errors] = stderr.split("\n").filter(Boolean);
  expect(errors).toEqual([]);
  let at = 0;
  const echoed = stdout.replaceAll(prompt, () => (at < typed.length ? `${prompt}${typed[at++]}\n` : prompt));
  return { shown: `${start}\n${echoed}`, code };
}

/** An endpoint on 127.0.0.1 that answers every request with `handler`. */
async function endpoint(handler: (res: ServerResponse) => void): Promise<string> {
  const server = createServer((req, res) => {
    req.resume();
    handler(res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push({
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The error line s03 prints against an endpoint (run in this process); its address written as the text writes it. */
async function errorLine(url: string, args: string[]): Promise<string> {
  const env = cleanEnv({ ANTHROPIC_AUTH_TOKEN: "k", ANTHROPIC_BASE_URL: url });
  const { code, stderr } = await runInProcess(main, [...args, "hi"], env);
  expect(code).toBe(1);
  return (stderr.split("\n").find((line) => line.startsWith("s03: error: ")) ?? stderr).replaceAll(
    url,
    "http://127.0.0.1:8080",
  );
}

chapterTextSuite({
  chapter: CHAPTER,
  sources: [
    join(CHAPTER, "src"),
    join(REPO, "s02-tool-dispatch", "src"),
    join(REPO, "shared", "src"),
    join(REPO, "cli", "src"),
  ],
  excerpts: 4,
  wholeLoop: {},
  diffs: [{ label: "s02's loop against this one", hunks: 7, from: S02_LOOP, to: S03_LOOP }],
  cli: {
    chapter,
    previous: s02Chapter,
    usage,
    exitCodeFor,
  },
});

describe.each(READMES)("%s", (name) => {
  const text = readme(name);

  it.each(NUMBERS)("states $what as the code's value", ({ value, patterns }) => {
    const found = patterns.flatMap((pattern) => captures(proseOf(text), pattern));
    expect(found.length).toBeGreaterThan(0);
    for (const n of found) expect(n).toBe(value);
  });

  it("shows exactly the lines the real diff of s02's loop changes, no other", () => {
    const diffs = codeFences(text, "diff");
    expect(diffs).toHaveLength(1);
    expect(changedLines(diffs[0])).toEqual(realLoopDiff());
  });

  it("adds aborted to the stop-reason table", () => {
    expect(text).toMatch(/^\|[^|\n]*Ctrl-C[^|\n]*\|\s*`aborted`\s*\|/m);
  });

  it("names only options the CLI has, and links the options page for the rest", () => {
    const help = usage(CLI.command, CLI.summary, [], CLI.exitCodes);
    const named = [...proseOf(text).matchAll(/`(--[a-z-]+)/g)].map((m) => m[1]);
    expect(named.length).toBeGreaterThan(0);
    for (const option of named) expect(help, option).toContain(`  ${option} `);
    expect(text).toContain(name === "README.md" ? "](../docs/options.md)" : "](../docs/options.zh.md)");
  });

  it("shows the build exercise's stub (a typescript block) as test/exercises.ts makes it", () => {
    const build = exercises.find((exercise) => exercise.kind === "build");
    expect(build).toBeDefined();
    const { file, find, replace } = build as (typeof exercises)[number];
    const stubbed = readFileSync(join(CHAPTER, file), "utf8").replace(find, replace);
    const stubs = codeFences(text, "typescript");
    expect(stubs).toHaveLength(1);
    // the stub, then the lines after it that the text shows to close the function
    expect(normalisedLines(stubs[0]).slice(0, normalisedLines(replace).length)).toEqual(normalisedLines(replace));
    expect(containsRun(normalisedLines(stubbed), normalisedLines(stubs[0]))).toBe(true);
  });
});

describe("the samples of README.md, run", { timeout: 120_000 }, () => {
  const text = readme("README.md");
  const samples = samplesOf(text);

  it("has the problem's s02 session, the s03 session and the one-shot run", () => {
    expect(samples.map((s) => s.command)).toEqual([
      `pnpm s02 --offline --cwd ${PLAY_DIR}`,
      `pnpm s03 --offline --cwd ${PLAY_DIR}`,
      `pnpm s03 --offline --cwd ${PLAY_DIR} 'Run \`sleep 30\`'`,
    ]);
  });

  it("prints what each prints, run in order in one directory with its reset, exiting with 130 on Ctrl-C", async () => {
    // every offline block in the text's order: the setup, s02's session, Try it's reset, s03's runs
    const dir = tempDir("s03-play-");
    const blocks = shellBlocks(text).filter(({ command }) => !command.includes("ANTHROPIC_"));
    expect(blocks.filter(({ command }) => !command.startsWith("pnpm "))).toHaveLength(2);
    for (const { command } of blocks) {
      const sample = samples.find((s) => s.command === command);
      if (!sample) {
        const ran = spawnSync("sh", ["-c", command.replaceAll(PLAY_DIR, dir)], { encoding: "utf8" });
        expect(ran.status, ran.stderr).toBe(0);
        continue;
      }
      const { shown, code } = await runSample(sample, dir);
      // a terminal echoes Ctrl-C as ^C where no line reader holds it (a one-shot run)
      expect(normalised(shown), command).toBe(normalised(sample.transcript.replaceAll("^C", "")));
      expect(code).toBe(exitCodeFor("aborted", CLI.exitCodes));
    }
  });

  it("quotes the lines s03 prints for an endpoint that is not a stream, or a silent one", async () => {
    const lines = codeFences(text, "text")
      .flatMap((block) => block.split("\n"))
      .filter((line) => line.startsWith("s03: error: "));
    const html = await endpoint((res) =>
      res.writeHead(200, { "content-type": "text/html" }).end("<html><body>Sign in</body></html>"),
    );
    const silent = await endpoint((res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(encodeSse({ event: "ping", data: { type: "ping" } })); // and then nothing
    });
    expect(lines).toEqual([await errorLine(html, []), await errorLine(silent, ["--model-timeout", "1"])]);
  });
});
