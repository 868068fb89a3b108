/**
 * Concurrent dispatch: one turn of 8 calls to a tool that only reads and takes 200 ms, against
 * one turn of 1 such call, through the s02 loop (whose `runToolCalls` runs all-safe calls at
 * once). Two such tools: one that waits in process (as s02's safe tools, which read files, do),
 * and one that is a real process (`sleep 0.2` through runBash, marked safe), which adds what it
 * costs to start 8 processes at once.
 *
 * Then the other half of the rule: a batch with one writer in it (read, write, read, read) goes
 * through s02's `runToolCalls`, and each call notes when it starts and ends. The order observed
 * must be the order written, one call after another.
 */
import { setTimeout as sleep } from "node:timers/promises";
import Anthropic from "@anthropic-ai/sdk";
import { defineTool, runToolCalls, agentLoop as s02Loop, type Tool, toolMap } from "@harness/s02-tool-dispatch";
import { runBash, type ToolCall, toolOutput } from "@harness/shared";
import { z } from "zod";
import { fanOutPrompt } from "../bench-brain.ts";
import { atMost, check, type Figure, formatValue, type Section, summarize } from "../section.ts";
import { startBenchServer } from "../start-bench-server.ts";

/** How the dispatch scenario runs. */
export interface DispatchConcurrencyOptions {
  warmup: number;
  reps: number;
  cwd: string;
  /** Calls in the wide turn (default 8). */
  calls?: number;
}

const slowRead = defineTool({
  name: "slow_read",
  description: "Read something slowly (200 ms, in process). It only reads.",
  schema: z.object({}),
  concurrencySafe: true,
  run: async (_input, { signal }) => {
    await sleep(200, undefined, { signal });
    return toolOutput("read");
  },
});

const slowProcess = defineTool({
  name: "slow_process",
  description: "Run `sleep 0.2` (a real process). Marked safe for this benchmark.",
  schema: z.object({}),
  concurrencySafe: true,
  run: (_input, { cwd, signal }) => runBash("sleep 0.2", { cwd, signal }),
});

/** The batch with one writer, in the order the model would have written it. */
const WRITER_BATCH = ["slow_read", "slow_write", "slow_read", "slow_read"];

/** A tool that takes 200 ms in process and notes in `events` when call `n` starts and ends. */
function recordingTool(name: string, concurrencySafe: boolean, events: string[]) {
  return defineTool({
    name,
    description: `Wait 200 ms in process (it ${concurrencySafe ? "only reads" : "writes"}).`,
    schema: z.object({ n: z.number() }),
    concurrencySafe,
    run: async ({ n }, { signal }) => {
      events.push(`start ${n} ${name}`);
      await sleep(200, undefined, { signal });
      events.push(`end ${n} ${name}`);
      return toolOutput(`${name} ${n}`);
    },
  });
}

/** Run the dispatch comparison, for each tool; then the batch with one writer. */
export async function dispatchConcurrency(o: DispatchConcurrencyOptions): Promise<Section> {
  const calls = o.calls ?? 8;
  const server = await startBenchServer();
  const problems: string[] = [];
  const figures: Figure[] = [];
  try {
    const client = new Anthropic({ apiKey: "bench", baseURL: server.url });
    for (const tool of [slowRead, slowProcess] as Tool[]) {
      const tools = toolMap([tool]);
      const ms: Record<number, number[]> = { 1: [], [calls]: [] };
      for (let rep = -o.warmup; rep < o.reps; rep++) {
        for (const n of rep % 2 === 0 ? [calls, 1] : [1, calls]) {
          const started = performance.now();
          const result = await s02Loop(client, [{ role: "user", content: fanOutPrompt(n, tool.name) }], {
            model: "scripted-model",
            cwd: o.cwd,
            tools,
            maxTurns: 4,
          });
          const elapsed = performance.now() - started;
          const served = await server.take();
          if (result.toolCalls !== n || result.finalText !== `${n} calls answered.` || served.requests !== 2) {
            problems.push(
              `${tool.name}: the ${n}-call run did other work: ${result.toolCalls} calls, ${JSON.stringify(result.finalText)}`,
            );
          }
          if (rep >= 0) ms[n].push(elapsed);
        }
      }
      const ratio = summarize(ms[calls].map((t, i) => t / ms[1][i]));
      figures.push({
        label: `${calls} calls / 1 call: ${tool.name} (${tool === slowRead ? "in process" : "a process each"})`,
        spread: ratio,
        unit: "x",
        detail: `${formatValue(summarize(ms[calls]).median, "ms")} against ${formatValue(summarize(ms[1]).median, "ms")}; one after another would be about ${calls}x`,
        target: atMost(ratio, 1.25, "≤ 1.25x of one call"),
      });
    }
  } finally {
    await server.close();
  }
  const order = await writerOrder(o);
  figures.push(order.figure);
  return {
    title: "Concurrent dispatch",
    about:
      `The s02 loop on a two-turn conversation: one turn of ${calls} calls (or 1) to a tool marked concurrency-safe ` +
      "that takes 200 ms, then a text answer. `slow_read` waits 200 ms in process (like s02's own safe tools, which " +
      "read files); `slow_process` runs `sleep 0.2` through runBash, so each call also starts a process. Whole-loop " +
      `wall time, both model calls included; ${o.warmup} warm-up pairs, then ${o.reps} counted, alternating. ` +
      `Then a batch with one writer (${WRITER_BATCH.join(", ")}, 200 ms each in process) goes straight to s02's ` +
      "`runToolCalls`, alternating with one `slow_read` call, and each call notes when it starts and ends.",
    figures,
    notes: [
      ...(problems.length === 0
        ? [`Equal work checked: every run made exactly ${calls} (or 1) calls and answered "${calls} calls answered."`]
        : []),
      ...order.notes,
    ],
    problems,
  };
}

/** The batch with one writer, `o.reps` times after `o.warmup`: did it run one by one, as written? */
async function writerOrder(o: DispatchConcurrencyOptions): Promise<{ figure: Figure; notes: string[] }> {
  const events: string[] = [];
  const tools = toolMap([recordingTool("slow_read", true, events), recordingTool("slow_write", false, events)]);
  const context = { cwd: o.cwd, signal: new AbortController().signal };
  const toCalls = (names: string[]): ToolCall[] => names.map((name, n) => ({ id: `toolu_${n}`, name, input: { n } }));
  const written = WRITER_BATCH.flatMap((name, n) => [`start ${n} ${name}`, `end ${n} ${name}`]).join(" → ");
  const batchMs: number[] = [];
  const oneMs: number[] = [];
  const observed: string[] = [];
  for (let rep = -o.warmup; rep < o.reps; rep++) {
    for (const names of rep % 2 === 0 ? [WRITER_BATCH, ["slow_read"]] : [["slow_read"], WRITER_BATCH]) {
      events.length = 0;
      const started = performance.now();
      await runToolCalls(tools, toCalls(names), context);
      const elapsed = performance.now() - started;
      if (rep < 0) continue;
      if (names === WRITER_BATCH) {
        batchMs.push(elapsed);
        observed.push(events.join(" → "));
      } else oneMs.push(elapsed);
    }
  }
  const inOrder = observed.filter((run) => run === written).length;
  const ratio = summarize(batchMs.map((t, i) => t / oneMs[i]));
  const others = [...new Set(observed.filter((run) => run !== written))];
  return {
    figure: {
      label: `batch with one writer / 1 call (one by one: ${WRITER_BATCH.length}x)`,
      spread: ratio,
      unit: "x",
      detail:
        `${formatValue(summarize(batchMs).median, "ms")} against ${formatValue(summarize(oneMs).median, "ms")}; ` +
        `in the order written in ${inOrder} of ${observed.length} runs; one by one is about ${WRITER_BATCH.length}x, side by side about 1x`,
      target: check(observed.length > 0 && inOrder === observed.length, "one by one, in the order written, every run"),
    },
    notes:
      others.length === 0
        ? [`Batch with one writer, order observed in every run: ${observed[0] ?? "(no run)"}.`]
        : [
            `Batch with one writer, order written: ${written}. ${observed.length - inOrder} of ${observed.length} runs ` +
              `went otherwise: ${others.join("; ")}.`,
          ],
  };
}
