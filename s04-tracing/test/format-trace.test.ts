import { describe, expect, it } from "vitest";
import type { IterationRecord, TraceRecord } from "../src/trace-record.ts";
import { formatList, formatShow } from "../src/viewer/format-trace.ts";
import type { LoadedTrace, TraceSummary } from "../src/viewer/read-trace.ts";

const summary = (over: Partial<TraceSummary>): TraceSummary => ({
  id: "id",
  path: "/t/id.jsonl",
  startedAt: "2026-03-04T05:06:07.890Z",
  firstPrompt: "prompt",
  stopReason: "final_answer",
  turns: 1,
  toolCalls: 0,
  inputTokens: 10,
  outputTokens: 2,
  ...over,
});

const iteration = (
  over: Partial<IterationRecord> & { prompt?: string; text?: string; n?: number },
): IterationRecord => ({
  type: "iteration",
  version: 2,
  traceId: "t1",
  run: 0,
  turn: 1,
  startedAt: "2026-03-04T05:06:07.890Z",
  request: {
    n: over.n ?? 1,
    keep: 0,
    model: "m",
    max_tokens: 100,
    system: "s",
    tools: [],
    messages: [{ role: "user", content: over.prompt ?? "List the files" }],
  },
  response: {
    id: "msg_1",
    model: "m",
    content: over.text ? [{ type: "text", text: over.text, citations: null }] : [],
    stopReason: "tool_use",
    usage: { inputTokens: 812, outputTokens: 18 },
  },
  toolCalls: [],
  timings: { ttftMs: 49.4, modelMs: 1234.5, toolMs: 17.2 },
  ...over,
});

const loaded = (records: TraceRecord[], skippedLines = 0): LoadedTrace => ({
  id: "t1",
  path: "/traces/t1.jsonl",
  records,
  skippedLines,
});

describe("formatList", () => {
  it("says how to make a trace when there is none", () => {
    expect(formatList([])).toBe('No traces yet. Run a chapter with --trace (e.g. pnpm s04 --trace "...").');
  });

  it("prints one aligned row per trace under a header, in the order given", () => {
    const out = formatList([
      summary({ id: "20260304-050607-abc", firstPrompt: "Read README.md\nand summarise it", turns: 2 }),
      summary({
        id: "old",
        startedAt: "2026-01-01T00:00:00.000Z",
        stopReason: "(running or killed)",
        inputTokens: 1200,
        outputTokens: 300,
      }),
    ]);
    expect(out.split("\n")).toEqual([
      "ID                   STARTED (UTC)        STOP                 TURNS  TOKENS IN/OUT  FIRST PROMPT",
      "20260304-050607-abc  2026-03-04 05:06:07  final_answer         2      10/2           Read README.md and summarise it",
      "old                  2026-01-01 00:00:00  (running or killed)  1      1200/300       prompt",
    ]);
  });

  it("clips a long first prompt and shows a dash for a trace with no iteration", () => {
    const out = formatList([summary({ firstPrompt: "x".repeat(100), startedAt: "" })]);
    const row = out.split("\n")[1];
    expect(row).toContain(`${"x".repeat(47)}…`);
    expect(row).not.toContain("x".repeat(48));
    expect(row.split(/\s{2,}/)[1]).toBe("-");
  });
});

describe("formatShow", () => {
  it("prints each run's prompt, each turn's timings, tokens and stop reason, its tools and the result", () => {
    const out = formatShow(
      loaded([
        iteration({
          text: "Let me look.",
          toolCalls: [
            {
              id: "a",
              name: "bash",
              input: { command: "ls -la" },
              result: "a.txt\nb.txt\nc.txt\n[exit code 0]",
              isError: false,
              startOffsetMs: 1240,
              durationMs: 17.2,
            },
            {
              id: "b",
              name: "read_file",
              input: { path: "missing.txt" },
              result: "Error [not_found]: missing.txt does not exist.",
              isError: true,
              startOffsetMs: 1240,
              durationMs: 2,
            },
          ],
        }),
        iteration({
          turn: 2,
          n: 2,
          startedAt: "2026-03-04T05:06:09.100Z",
          text: "Three files.",
          response: {
            id: "msg_2",
            model: "m",
            content: [{ type: "text", text: "Three files.", citations: null }],
            stopReason: "end_turn",
            usage: { inputTokens: 900, outputTokens: 5 },
          },
          timings: { ttftMs: 8, modelMs: 11, toolMs: 0 },
        }),
        {
          type: "result",
          version: 2,
          traceId: "t1",
          run: 0,
          at: "2026-03-04T05:06:09.200Z",
          result: {
            stopReason: "final_answer",
            turns: 2,
            toolCalls: 2,
            finalText: "Three files.",
            providerStopReason: "end_turn",
            usage: { inputTokens: 1712, outputTokens: 23 },
          },
        },
      ]),
    );
    expect(out.split("\n")).toEqual([
      "trace t1  (/traces/t1.jsonl)",
      "",
      'run 1 · "List the files"',
      "  turn 1  #1  05:06:07.890  ttft 49 ms · model 1.23 s · tools 17 ms · 812 in / 18 out · tool_use",
      "    │ Let me look.",
      "    ✓ bash ls -la  17 ms",
      "        a.txt",
      "        b.txt",
      "        … (2 more lines)",
      '    ✗ read_file {"path":"missing.txt"}  2 ms',
      "        Error [not_found]: missing.txt does not exist.",
      "  turn 2  #2  05:06:09.100  ttft 8 ms · model 11 ms · 900 in / 5 out · end_turn",
      "    │ Three files.",
      "  → final_answer · 2 turns · 2 tool calls · 1712 in / 23 out tokens",
    ]);
  });

  it("starts a new section for each run of a session", () => {
    const out = formatShow(
      loaded([
        iteration({ run: 0, prompt: "first" }),
        iteration({ run: 1, prompt: "second", turn: 1, n: 2 }),
        iteration({ run: 1, prompt: "second", turn: 2, n: 3 }),
      ]),
    );
    expect(out.split("\n").filter((l) => l.startsWith("run "))).toEqual(['run 1 · "first"', 'run 2 · "second"']);
  });

  it("shows the error that ended a run", () => {
    const out = formatShow(
      loaded([
        iteration({}),
        {
          type: "error",
          version: 2,
          traceId: "t1",
          run: 0,
          turn: 2,
          startedAt: "x",
          at: "x",
          request: iteration({ n: 2 }).request,
          message: "the stream ended without message_stop",
        },
      ]),
    );
    expect(out.split("\n").at(-1)).toBe("  ✗ turn 2  #2  failed: the stream ended without message_stop");
  });

  it("says when a line was skipped and when the run has no result", () => {
    const out = formatShow(loaded([iteration({})], 1));
    const lines = out.split("\n");
    expect(lines[1]).toBe("  (1 unreadable line skipped: a run was cut mid-write)");
    expect(lines.at(-1)).toBe("  (no result record: the run was still going or was killed)");
    expect(formatShow(loaded([iteration({})], 2)).split("\n")[1]).toBe(
      "  (2 unreadable lines skipped: a run was cut mid-write)",
    );
  });

  it("prints only the header for an empty trace", () => {
    expect(formatShow(loaded([]))).toBe("trace t1  (/traces/t1.jsonl)");
  });
});
