/**
 * The chapter text cannot drift from the code: the chapter-text suite (every ```ts excerpt in the
 * sources, the whole loop the source's, the diff of s08's loop against this one real and whole,
 * the help lines of its own option the CLI's, the same code in both languages); then this chapter's
 * own: the loops differ by one import moved, the adapter is behind the window as main.ts puts it,
 * the mapping tables are the code's data, the refusals it quotes are what each adapter reads, and
 * every sample run is that command run again offline, in order.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { exitCodeFor, REPO_ROOT, usage } from "@harness/cli";
import { projectSlug } from "@harness/s04-tracing";
import { ScriptedModel } from "@harness/scripted-model";
import {
  changedLines,
  chapterTextSuite,
  codeFences,
  containsRun,
  normalisedLines,
  runSamplesInOrder,
} from "@harness/testkit";
import { describe, expect, it } from "vitest";
import { chapter as s08Chapter } from "../../s08-compaction/src/main.ts";
import { scriptedAdapter } from "../src/connect/create-adapter.ts";
import { PROVIDER_FLAGS } from "../src/flags.ts";
import { FORMAT_BOUND_BLOCKS } from "../src/history-for-format.ts";
import { chapter } from "../src/main.ts";
import { CHAT_STOP_REASONS } from "../src/openai/message-from-chat.ts";
import { RESPONSES_STOP_REASONS } from "../src/openai/message-from-responses.ts";
import { WIRE_FORMATS, type WireFormat } from "../src/provider-adapter.ts";

const CHAPTER = join(REPO_ROOT, "s09-providers");
const READMES = ["README.md", "README.zh.md"] as const;
const S08_LOOP = join(REPO_ROOT, "s08-compaction", "src", "agent-loop.ts");
const S09_LOOP = join(CHAPTER, "src", "agent-loop.ts");

const readme = (name: string) => readFileSync(join(CHAPTER, name), "utf8");

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

/** What `format`'s adapter throws when the scripted model's window is too small, and what it reads off it. */
async function refusal(format: WireFormat) {
  const model = new ScriptedModel({ contextWindow: 500 }); // every request refused before any reply
  const adapter = scriptedAdapter(format, model, { maxRetries: 0 });
  const request = { model: "m", max_tokens: 100, messages: [{ role: "user" as const, content: "word ".repeat(4000) }] };
  const error: unknown = await adapter.streamTurn(request, new AbortController().signal).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  const body = (error as { error?: unknown }).error;
  return {
    words: `${(error as Error).message} ${JSON.stringify(body)}`,
    code: (error as { code?: unknown }).code,
    read: adapter.promptTooLong(error),
  };
}

chapterTextSuite({
  chapter: CHAPTER,
  excerpts: 10,
  wholeLoop: {},
  diffs: [{ label: "s08's loop against this one", hunks: 2, from: S08_LOOP, to: S09_LOOP }],
  cli: {
    chapter,
    previous: s08Chapter,
    usage,
    exitCodeFor,
  },
});

describe.each(READMES)("%s", (name) => {
  const text = readme(name);

  it("names the seam in the table of what changed, and shows main.ts putting the adapter behind the window", () => {
    const rows = tableRows(text, /^\| (?:concern|关注点|方面)/);
    expect(rows.map((row) => row[2])).toEqual(
      expect.arrayContaining(["`adapter.streamTurn`", "`adapter.promptTooLong`"]),
    );
    const main = normalisedLines(readFileSync(join(CHAPTER, "src", "main.ts"), "utf8"));
    const shown = codeFences(text, "ts").find((block) => block.includes("const send = adapter.streamTurn;"));
    expect(shown && containsRun(main, normalisedLines(shown))).toBe(true);
    expect(shown).toContain("tooLong: adapter.promptTooLong,");
  });

  it("shows the finish-reason table as CHAT_STOP_REASONS maps it", () => {
    const rows = tableRows(text, /^\| `finish_reason`/);
    const mapped = rows.filter((row) => row[0].startsWith("`"));
    expect(mapped.map((row) => [code(row[0]), code(row[1])])).toEqual(Object.entries(CHAT_STOP_REASONS));
    expect(rows).toHaveLength(mapped.length + 1); // and the row for everything else
  });

  it("shows the incomplete reasons as RESPONSES_STOP_REASONS maps them", () => {
    const rows = tableRows(text, /^\| (?:status and reason|状态与原因)/);
    const incomplete = rows.filter((row) => /^`incomplete`[,，] ?`/.test(row[0]));
    expect(incomplete.map((row) => [/`(\w+)`$/.exec(row[0])?.[1], code(row[1])])).toEqual(
      Object.entries(RESPONSES_STOP_REASONS),
    );
  });

  it("shows what crosses providers as FORMAT_BOUND_BLOCKS has it", () => {
    const rows = tableRows(text, /^\| (?:block in the history|历史里的块)/);
    const sent = (cell: string) => !/^(?:left out|不发送)$/.test(cell);
    for (const [kind, bound] of Object.entries(FORMAT_BOUND_BLOCKS)) {
      const label = kind.startsWith("reasoning:") ? kind.replace("reasoning:", "") : kind;
      const row = rows.find((r) => r[0].includes(`\`${label}\``));
      expect(row, kind).toBeDefined();
      expect(
        WIRE_FORMATS.filter((_, i) => sent(row?.[i + 1] ?? "")),
        kind,
      ).toEqual([bound.format]);
    }
  });

  it("quotes each format's 'too long' refusal, and says what the adapter reads off it", async () => {
    const rows = tableRows(text, /^\| (?:format|格式) /);
    expect(rows.map((row) => code(row[0]))).toEqual([...WIRE_FORMATS]);
    for (const [cell, refused, learns] of rows) {
      const { words, code: errorCode, read } = await refusal(code(cell) as WireFormat);
      expect(read, cell).not.toBeNull();
      const numbered = (piece: string) =>
        piece.replace(/\bN\b/g, String(read?.tokens)).replace(/\bM\b/g, String(read?.maximum));
      // the quoted words, `…` standing for words left out, with N the tokens sent and M the maximum
      const quoted = /"([^"]+)"/.exec(refused)?.[1] ?? code(refused);
      for (const piece of quoted.split("…").map((p) => p.trim())) expect(words, cell).toContain(numbered(piece));
      if (refused.startsWith("`context_length_exceeded`")) expect(errorCode, cell).toBe("context_length_exceeded");
      expect(read?.maximum !== undefined, `${cell}: ${learns}`).toBe(/^(?:both numbers|两个数)/.test(learns));
    }
  });

  it("names the option the CLI adds, as its help gives it, and links the options page for the rest", () => {
    expect(codeFences(text, "text")).toContain(`${PROVIDER_FLAGS.map((flag) => `  ${flag.help}`).join("\n")}\n`);
    expect(text).toContain(name === "README.md" ? "](../docs/options.md)" : "](../docs/options.zh.md)");
  });
});

describe("the chapter text", () => {
  it("names no API the loop rebuild removed", () => {
    for (const text of READMES.map(readme)) {
      expect(text).not.toMatch(
        /ContextKeeper|\bkeeper\b|reactsTo|sendTurnWith|keepForFormat|keep-for-format|providerParts|S09_OPTIONS|CompactionCliParts|compactionCli|AgentStopReason|observer/,
      );
    }
  });

  it("shows the loops differing in their header lines and one import, moved, and nothing else", () => {
    // every changed line but the one-line headers, whatever the header check lets pass: one import, moved
    const git = spawnSync("git", ["diff", "--no-index", "--no-color", "--", S08_LOOP, S09_LOOP], { encoding: "utf8" });
    const real = changedLines(git.stdout).filter((line) => !/^[-+]\/\*\* s0[89]: /.test(line));
    expect(real.map((line) => line.slice(1).replace(/".*"/, '"…"'))).toEqual([
      'import { ContextOverflow, type ContextWindow } from "…";',
      'import { ContextOverflow, type ContextWindow } from "…";',
    ]);
  });
});

/**
 * The sample runs, in the text's order, in one copy of the sample directory its setup block makes
 * (the path the same length, as the scripted model estimates tokens from the request's size and
 * the system prompt names the directory) and one harness home, as a reader runs them: the
 * `--continue` goes on with the session the run before it wrote. Each ```sh block holding one
 * `pnpm sNN` line and followed by a ```text block is run by sh from the repository root; its output
 * must be that block. What varies from run to run is normalised: the directory, the home, and
 * session ids (the same id the same everywhere).
 */
describe("the sample runs in README.md", () => {
  const text = readme("README.md");
  const SAMPLE_DIR = "/tmp/s09-sample";
  const setup =
    codeFences(text, "sh").find((block) => block.startsWith(`rm -rf ${SAMPLE_DIR} && mkdir -p ${SAMPLE_DIR} `)) ?? "";
  const samples = [...text.matchAll(/^```sh\n([^\n]*pnpm s\d\d [^\n]*)\n```\n\n```text\n([\s\S]*?)^```$/gm)].map(
    ([, command, output]) => ({ command, output }),
  );

  it("has a setup block and the samples: s08 with only an OpenAI key, then s09 on each format, the last continuing", () => {
    expect(setup).not.toBe("");
    expect(samples.map((s) => /pnpm (s\d\d)/.exec(s.command)?.[1])).toEqual(["s08", "s09", "s09", "s09"]);
    expect(samples.map((s) => /--provider ([\w-]+)/.exec(s.command)?.[1])).toEqual([
      undefined,
      "openai-chat",
      "anthropic",
      "openai-responses",
    ]);
    expect(samples[3].command).toContain("--continue");
  });

  it("shows what each sample prints, run in order in one project and one home", { timeout: 120_000 }, () => {
    const runs = runSamplesInOrder({ samples, sampleDir: SAMPLE_DIR, setup, repoRoot: REPO_ROOT, projectSlug });
    for (const run of runs) {
      expect(run.printed, run.command).toEqual(run.shown);
      expect(run.status, `${run.command}\n${run.stderr}`).toBe(0);
    }
  });
});
