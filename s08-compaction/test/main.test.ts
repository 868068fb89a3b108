/**
 * s08 through its CLI, offline: `--context-window` sets the scripted model's window too, the
 * context line after each answer, `/compact`, `--compaction off`, and the exit status of
 * `context_overflow`.
 */
import { usage } from "@harness/cli";
import { describe, expect, it } from "vitest";
import { CONTEXT_OVERFLOW_EXIT, S08_OPTIONS } from "../src/main.ts";
import { partsProject, runCli } from "./run-cli.ts";

const reads = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `Read part-${from + i}.txt and summarise it`);

describe("pnpm s08", () => {
  it("runs a session longer than a small window to the end, says how full the context is, and recalls a note", async () => {
    const cwd = partsProject();
    const { code, stdout, stderr } = await runCli(
      ["--offline", "--context-window", "4000", "--cwd", cwd],
      ["Note: the release codename is BLUE-HERON.", ...reads(1, 7), "What is the release codename you noted?"],
    );
    expect(stderr).not.toContain("error");
    expect(code).toBe(0);
    expect(stdout).toMatch(/^context: cleared 1 old tool result \([\d,]+ → [\d,]+ tokens\)$/m);
    expect(stdout).toMatch(
      /^context: over the threshold: summarised \d+ messages, kept \d+ \([\d,]+ → [\d,]+ tokens\)$/m,
    );
    expect(stdout).toMatch(/^context: [\d,]+ of 3,200 tokens \(\d+%; window 4,000, the rest kept for the answer\)$/m);
    expect(stdout).toContain("The release codename is BLUE-HERON.");
  }, 60_000);

  it("summarises by hand with /compact, whatever the size", async () => {
    const cwd = partsProject(2);
    const { code, stdout } = await runCli(
      ["--offline", "--cwd", cwd],
      [...reads(1, 2), "/compact keep the line counts"],
    );
    expect(code).toBe(0);
    expect(stdout).toMatch(
      /^(?:s08 >> )?context: \/compact: summarised 8 messages, kept 0 \(history [\d,]+ → [\d,]+ tokens\)$/m,
    );
  }, 60_000);

  it("with --compaction off, prints the API's refusal as one error line, and every later prompt fails too", async () => {
    const cwd = partsProject();
    const { stderr } = await runCli(
      ["--offline", "--context-window", "4000", "--compaction", "off", "--cwd", cwd],
      [...reads(1, 8), "What is 2 + 2?"],
    );
    const refusals = stderr.match(
      /^s08: error: the API answered 400 invalid_request_error: prompt is too long: \d+ tokens > 4000 maximum$/gm,
    );
    expect(refusals?.length).toBeGreaterThanOrEqual(2);
  }, 60_000);

  it(`stops with context_overflow, exit status ${CONTEXT_OVERFLOW_EXIT}, when nothing makes the prompt fit`, async () => {
    const { code, stdout } = await runCli(["--offline", "--context-window", "600", "x".repeat(4000)]);
    expect(code).toBe(CONTEXT_OVERFLOW_EXIT);
    expect(stdout).toContain("── context_overflow · 0 turns");
  }, 60_000);

  it("refuses a bad window or mode in one line, before any model call", async () => {
    for (const [argv, line] of [
      [
        ["--context-window", "0"],
        's08: error: --context-window expects a whole number of tokens of at least 1, got "0"\n',
      ],
      [
        ["--context-window", "lots"],
        's08: error: --context-window expects a whole number of tokens of at least 1, got "lots"\n',
      ],
      [["--compaction", "later"], 's08: error: --compaction: "later" is not a mode; use one of client, server, off\n'],
    ] as const) {
      const { code, stderr } = await runCli(["--offline", ...argv, "hi"]);
      expect(code).toBe(1);
      expect(stderr).toBe(line);
    }
  });

  it("lists its options, its exit statuses and /compact in --help", async () => {
    const { code, stdout } = await runCli(["--help"]);
    expect(code).toBe(0);
    expect(stdout).toContain("--context-window N");
    expect(stdout).toContain("this chapter: 130 aborted, 4 prompt_blocked, 5 context_overflow");
    expect(stdout).toContain("in the REPL:\n  /compact [instructions]");
    expect(
      stdout.startsWith(usage("s08", "a conversation longer than the context window", S08_OPTIONS).split("\nexit")[0]),
    ).toBe(true);
  });
});
