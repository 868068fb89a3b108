/**
 * What tracing costs the loop: the same scripted conversation, run untraced and traced,
 * interleaved run by run, 1,000 iterations each per round, for several rounds.
 *
 * The model is the scripted model in process, so a model call costs only the SDK's request and
 * SSE parsing: this is the worst case for the ratio, since with a real model each call takes
 * hundreds of milliseconds and the same trace writes would be a far smaller share. Each run is
 * 10 turns: 9 that read a small file with read_file (a cheap, concurrency-safe tool) and an answer.
 *
 * Run from the repository root: node --import tsx bench/tracing-overhead.ts
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { agentLoop, TraceWriter } from "@harness/s03-tracing";
import { appendUserText, isValidHistory, reply, ScriptedModel, text, textReply, toolUse } from "@harness/shared";

/** Iterations per condition per round. */
export const ITERATIONS = 1000;
/** Model calls per run: TURNS_PER_RUN - 1 tool turns, then the answer. */
const TURNS_PER_RUN = 10;
/** Measured rounds (after one warm-up round that is not counted). */
const ROUNDS = 7;
/** The target: tracing adds under 2% to loop time. */
export const TARGET_OVERHEAD = 0.02;

const cwd = mkdtempSync(join(tmpdir(), "bench-tracing-"));
for (let i = 1; i < TURNS_PER_RUN; i++) writeFileSync(join(cwd, `file-${i}.txt`), `line one of ${i}\nline two\n`);

/** Turn k of a run reads file-k.txt; the last turn answers. Read off the request, like a model. */
const model = new ScriptedModel({
  brain: (request) => {
    const done = (request.messages.length - 1) / 2;
    if (done < TURNS_PER_RUN - 1) {
      return reply([text(`Reading file ${done + 1}.`), toolUse("read_file", { path: `file-${done + 1}.txt` })]);
    }
    return textReply("I read every file.");
  },
});
const client = model.client();

/** One run of TURNS_PER_RUN iterations; returns its wall time in ms. */
async function timedRun(trace?: TraceWriter): Promise<number> {
  const messages: MessageParam[] = [];
  appendUserText(messages, "Read the files.");
  const start = performance.now();
  const result = await agentLoop(client, messages, { model: "bench-model", cwd, maxTurns: TURNS_PER_RUN, trace });
  const ms = performance.now() - start;
  if (result.turns !== TURNS_PER_RUN || result.stopReason !== "final_answer" || !isValidHistory(messages)) {
    throw new Error(`the scripted run went wrong: ${JSON.stringify(result)}`);
  }
  return ms;
}

/** One round: ITERATIONS untraced and ITERATIONS traced, alternating which goes first. */
async function round(n: number): Promise<{ plain: number; traced: number; bytes: number; pairs: number[] }> {
  // two fake credentials, so the redaction pass does the work it does with a key set
  const writer = new TraceWriter(`bench-round-${n}`, join(cwd, ".traces"), [
    "bench-api-key-0123456789abcdef",
    "bench-auth-token-0123456789abcdef",
  ]);
  let plain = 0;
  let traced = 0;
  const pairs: number[] = []; // traced / untraced for runs side by side: robust to the load drifting
  for (let run = 0; run < ITERATIONS / TURNS_PER_RUN; run++) {
    let a: number;
    let b: number;
    if (run % 2 === 0) {
      a = await timedRun();
      b = await timedRun(writer);
    } else {
      b = await timedRun(writer);
      a = await timedRun();
    }
    plain += a;
    traced += b;
    pairs.push(b / a);
  }
  return { plain, traced, bytes: statSync(writer.path).size, pairs };
}

const stats = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return { min: sorted[0], median: sorted[Math.floor(sorted.length / 2)], max: sorted.at(-1)! };
};
const ms = (v: number) => `${v.toFixed(0)} ms`;
const pct = (v: number) => `${(v * 100).toFixed(2)}%`;

console.log("tracing overhead: the s03 loop on the in-process scripted model");
console.log(
  `  ${ITERATIONS} iterations per condition per round (${ITERATIONS / TURNS_PER_RUN} runs of ${TURNS_PER_RUN} turns, ` +
    `9 read_file calls each), ${ROUNDS} rounds after 1 warm-up; untraced and traced runs interleaved`,
);
console.log(`  node ${process.version}, ${cpus().length} CPUs, load average ${loadavg()[0].toFixed(2)} at start`);

await round(-1); // warm-up: JIT, the SDK's first requests, the file cache
const rounds: Array<{ plain: number; traced: number; bytes: number; pairs: number[] }> = [];
for (let n = 0; n < ROUNDS; n++) {
  const r = await round(n);
  rounds.push(r);
  console.log(
    `  round ${n + 1}: untraced ${ms(r.plain)}, traced ${ms(r.traced)}, overhead ${pct(r.traced / r.plain - 1)}` +
      ` (trace file ${(r.bytes / 1e6).toFixed(1)} MB)`,
  );
}

const plain = stats(rounds.map((r) => r.plain));
const traced = stats(rounds.map((r) => r.traced));
const overhead = stats(rounds.map((r) => r.traced / r.plain - 1));
console.log(
  `  untraced, ${ITERATIONS} iterations: min ${ms(plain.min)}  median ${ms(plain.median)}  max ${ms(plain.max)}`,
);
console.log(
  `  traced,   ${ITERATIONS} iterations: min ${ms(traced.min)}  median ${ms(traced.median)}  max ${ms(traced.max)}`,
);
console.log(
  `  per iteration (median): untraced ${(plain.median / ITERATIONS).toFixed(3)} ms, traced ${(traced.median / ITERATIONS).toFixed(3)} ms`,
);
console.log(`  overhead: min ${pct(overhead.min)}  median ${pct(overhead.median)}  max ${pct(overhead.max)}`);
const paired = stats(rounds.flatMap((r) => r.pairs)).median - 1;
console.log(`  (median over all ${rounds.length * rounds[0].pairs.length} side-by-side run pairs: ${pct(paired)})`);
const perIteration = stats(rounds.map((r) => (r.traced - r.plain) / ITERATIONS)).median;
console.log(
  `  tracing's own cost (median of the round differences): ${perIteration.toFixed(3)} ms per iteration, ` +
    `against ${(plain.median / ITERATIONS).toFixed(3)} ms for an untraced scripted iteration`,
);
console.log(
  overhead.median < TARGET_OVERHEAD
    ? `  target "tracing adds under ${pct(TARGET_OVERHEAD)} to loop time": met (median ${pct(overhead.median)})`
    : `  target "tracing adds under ${pct(TARGET_OVERHEAD)} to loop time": MISSED (median ${pct(overhead.median)})`,
);
console.log(`  load average ${loadavg()[0].toFixed(2)} at the end`);
rmSync(cwd, { recursive: true, force: true });
