/**
 * Benchmark: do concurrency-safe tool calls really run side by side?
 *
 * Each round runs, in one process, one call to a tool that takes CALL_MS, then a batch of
 * MAX_CONCURRENT_TOOLS such calls, both through `runToolCalls`. If the batch runs at once it takes
 * about as long as the single call; the target is under TARGET_RATIO times the single call
 * (medians compared). Then a batch with one writer in it runs, and the order its calls started and
 * ended in is printed: it should be exactly the order they were written in.
 *
 * The tool waits on a timer, as a read waits on the disk or the network: that is the work that
 * overlaps. A tool that kept the CPU busy would not, since the calls share one JavaScript thread.
 * Every round is counted and printed as measured. This is a benchmark, not a test: it asserts
 * nothing and its exit status is 0 whatever it measures.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { defineTool, MAX_CONCURRENT_TOOLS, runToolCalls, toolMap } from "@harness/s02-tool-dispatch";
import type { ToolCall } from "@harness/shared";
import { z } from "zod";

/** How long each call takes, in milliseconds. */
const CALL_MS = 200;
/** Rounds measured (each: one call, then a batch). */
const ROUNDS = 5;
/** The batch should take less than this many times the single call. */
const TARGET_RATIO = 1.25;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** What the order run records: each call's start and end, in the order they happened. */
const events: string[] = [];

/** A tool that takes CALL_MS and records when it starts and ends. */
function waitingTool(name: string, concurrencySafe: boolean) {
  return defineTool({
    name,
    description: `Wait ${CALL_MS} ms (${concurrencySafe ? "reads" : "writes"}).`,
    schema: z.object({ n: z.number() }),
    concurrencySafe,
    async run({ n }) {
      events.push(`start ${name} ${n}`);
      await sleep(CALL_MS);
      events.push(`end ${name} ${n}`);
      return { content: `${name} ${n}`, isError: false };
    },
  });
}

const tools = toolMap([waitingTool("read", true), waitingTool("write", false)]);
const context = { cwd: process.cwd(), signal: new AbortController().signal };

function calls(names: string[]): ToolCall[] {
  return names.map((name, n) => ({ id: `toolu_${n}`, name, input: { n } }));
}

async function timed(batch: ToolCall[]): Promise<number> {
  const start = performance.now();
  await runToolCalls(tools, batch, context);
  return performance.now() - start;
}

function stats(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { min: sorted[0], median, max: sorted.at(-1) ?? Number.NaN };
}

const ms = (value: number) => `${value.toFixed(1)} ms`;

console.log("concurrent-dispatch: safe tool calls side by side, through runToolCalls");
console.log(
  `node ${process.version} · ${cpus().length} CPUs · load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`,
);
console.log(`each call takes ${CALL_MS} ms; ${ROUNDS} rounds, every round counted\n`);

const one: number[] = [];
const batch: number[] = [];
const reads = Array.from({ length: MAX_CONCURRENT_TOOLS }, () => "read");
for (let round = 1; round <= ROUNDS; round++) {
  const single = await timed(calls(["read"]));
  const several = await timed(calls(reads));
  one.push(single);
  batch.push(several);
  console.log(`round ${round}: 1 call ${ms(single)}   ${MAX_CONCURRENT_TOOLS} calls ${ms(several)}`);
}

const s1 = stats(one);
const s8 = stats(batch);
const ratio = s8.median / s1.median;
console.log("");
console.log(`1 call:   min ${ms(s1.min)}   median ${ms(s1.median)}   max ${ms(s1.max)}`);
console.log(`${MAX_CONCURRENT_TOOLS} calls:  min ${ms(s8.min)}   median ${ms(s8.median)}   max ${ms(s8.max)}`);
console.log(
  `ratio (median ${MAX_CONCURRENT_TOOLS} / median 1): ${ratio.toFixed(3)}x · target: under ${TARGET_RATIO}x of one · ${
    ratio < TARGET_RATIO ? "met" : "NOT met"
  }`,
);

// a batch with one writer: every call runs alone, in the order written
const written = ["read", "write", "read", "read"];
events.length = 0;
const writerBatch = await timed(calls(written));
const expected = written.flatMap((name, n) => [`start ${name} ${n}`, `end ${name} ${n}`]);
const inOrder = events.join() === expected.join();
console.log(`\na batch with one writer (${written.join(", ")}): ${ms(writerBatch)}`);
console.log(`observed order: ${events.join(" → ")}`);
console.log(`one by one, in the order written: ${inOrder ? "yes" : "NO"}`);

const results = join(import.meta.dirname, "results");
mkdirSync(results, { recursive: true });
writeFileSync(
  join(results, "concurrent-dispatch.json"),
  `${JSON.stringify(
    {
      at: new Date().toISOString(),
      node: process.version,
      cpus: cpus().length,
      loadavg: loadavg(),
      callMs: CALL_MS,
      batchSize: MAX_CONCURRENT_TOOLS,
      oneMs: one,
      batchMs: batch,
      ratio,
      targetRatio: TARGET_RATIO,
      writerBatch: { calls: written, ms: writerBatch, events, inOrder },
    },
    null,
    2,
  )}\n`,
);
