/**
 * What tracing costs the loop: s04's loop on one scripted conversation, untraced and traced,
 * interleaved run by run (which goes first alternates). A round is ITERATIONS iterations of each:
 * runs of 10 model calls, 9 that read a small file with read_file (a cheap, concurrency-safe tool)
 * and an answer. A round's ratio is its traced time over its untraced time.
 *
 * The model answers at once from its own process, so a model call costs only the HTTP round trip
 * and the SDK's parsing: the hardest setting for the ratio. With a real model a call takes hundreds
 * of milliseconds, and the absolute cost per iteration, in the detail, is what carries over.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { agentLoop, readTrace, TraceWriter } from "@harness/s04-tracing";
import { isValidHistory } from "@harness/shared";
import { readTurnsAnswer, readTurnsPrompt, writeReadTurnsFiles } from "../bench-brain.ts";
import { type Figure, formatDelta, formatValue, type Section, summarize, under } from "../section.ts";
import { type BenchServer, startBenchServer } from "../start-bench-server.ts";

/** Iterations per condition per round. */
export const ITERATIONS = 1000;
/** The target: tracing adds under 2% to loop time. */
export const TARGET_OVERHEAD = 0.02;
/** Model calls (iterations) per run: 9 read_file turns, then the answer. */
const TURNS_PER_RUN = 10;
/** Two fake credentials, so the redaction pass does the work it does when a key is set. */
const SECRETS = ["bench-api-key-0123456789abcdef", "bench-auth-token-0123456789abcdef"];

/** How the tracing scenario runs. */
export interface TracingOverheadOptions {
  /** Untraced and traced run pairs before the rounds, not counted. */
  warmup: number;
  /** Rounds of ITERATIONS iterations of each. */
  reps: number;
}

/** One run's cost. */
interface RunCost {
  ms: number;
  cpuMs: number;
}

/** Run the traced / untraced comparison. */
export async function tracingOverhead(o: TracingOverheadOptions): Promise<Section> {
  const dir = mkdtempSync(join(tmpdir(), "bench-tracing-"));
  writeReadTurnsFiles(dir, TURNS_PER_RUN - 1);
  const server = await startBenchServer();
  const problems = new Set<string>(); // one line per kind of failure, not one per run
  const rounds: { plain: RunCost; traced: RunCost; pairs: number[]; bytes: number }[] = [];
  try {
    const client = new Anthropic({ apiKey: "bench", baseURL: server.url });
    const run = (trace?: TraceWriter) => timedRun(client, server, dir, problems, trace);
    const warmupTrace = new TraceWriter("bench-warmup", join(dir, ".traces"), SECRETS);
    for (let i = 0; i < o.warmup; i++) {
      await run();
      await run(warmupTrace);
    }
    for (let round = 0; round < o.reps; round++) {
      const trace = new TraceWriter(`bench-round-${round}`, join(dir, ".traces"), SECRETS);
      const plain = { ms: 0, cpuMs: 0 };
      const traced = { ms: 0, cpuMs: 0 };
      const pairs: number[] = []; // traced / untraced of two runs next to each other
      for (let pair = 0; pair < ITERATIONS / TURNS_PER_RUN; pair++) {
        let a: RunCost; // untraced
        let b: RunCost; // traced
        if (pair % 2 === 0) {
          a = await run();
          b = await run(trace);
        } else {
          b = await run(trace);
          a = await run();
        }
        plain.ms += a.ms;
        plain.cpuMs += a.cpuMs;
        traced.ms += b.ms;
        traced.cpuMs += b.cpuMs;
        pairs.push(b.ms / a.ms);
      }
      // equal work: the traced runs recorded every iteration
      const recorded = readTrace(trace.path).records.filter((r) => r.type === "iteration").length;
      if (recorded !== ITERATIONS)
        problems.add(`round ${round + 1}'s trace holds ${recorded} iterations, not ${ITERATIONS}`);
      rounds.push({ plain, traced, pairs, bytes: statSync(trace.path).size });
      rmSync(trace.path);
    }
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }

  const perIteration = (values: number[]) => summarize(values.map((v) => v / ITERATIONS)).median;
  const plainMs = perIteration(rounds.map((r) => r.plain.ms));
  const tracedMs = perIteration(rounds.map((r) => r.traced.ms));
  const costMs = perIteration(rounds.map((r) => r.traced.ms - r.plain.ms));
  const plainCpu = perIteration(rounds.map((r) => r.plain.cpuMs));
  const tracedCpu = perIteration(rounds.map((r) => r.traced.cpuMs));
  const costCpu = perIteration(rounds.map((r) => r.traced.cpuMs - r.plain.cpuMs));
  const ratio = summarize(rounds.map((r) => r.traced.ms / r.plain.ms));
  const pairs = rounds.flatMap((r) => r.pairs);
  const figures: Figure[] = [
    {
      label: "traced / untraced loop time, 1,000 iterations each",
      spread: ratio,
      unit: "x",
      detail:
        `${formatValue(tracedMs, "ms")} per iteration against ${formatValue(plainMs, "ms")} ` +
        `(${formatDelta(costMs * 1000, "µs")}); median of the ${pairs.length} run pairs side by side: ` +
        formatValue(summarize(pairs).median, "x"),
      target: under(ratio, 1 + TARGET_OVERHEAD, `< ${1 + TARGET_OVERHEAD}x (tracing adds under 2% to loop time)`),
    },
    {
      label: "traced / untraced, this process's CPU time",
      spread: summarize(rounds.map((r) => r.traced.cpuMs / r.plain.cpuMs)),
      unit: "x",
      detail: `${formatValue(tracedCpu, "ms")} CPU per iteration against ${formatValue(plainCpu, "ms")} (${formatDelta(costCpu * 1000, "µs")})`,
    },
  ];
  const megabytes = summarize(rounds.map((r) => r.bytes / 2 ** 20)).median;
  const notes: string[] = [];
  if (problems.size === 0 && rounds.length > 0) {
    notes.push(
      `Equal work checked: every run made ${TURNS_PER_RUN} model calls (the server's count too) and ` +
        `${TURNS_PER_RUN - 1} read_file calls, and answered "${readTurnsAnswer(TURNS_PER_RUN - 1)}"; each round's ` +
        `trace holds its ${ITERATIONS.toLocaleString("en")} iterations (${formatValue(megabytes, "MB")}, written to a fresh directory under ${tmpdir()}).`,
    );
  }
  if (Number.isFinite(costMs)) {
    notes.push(
      `Tracing's own cost, the median of the rounds' differences, is ${formatValue(costMs * 1000, "µs")} per iteration: ` +
        `next to a model call of 500 ms that is ${((costMs / (500 + plainMs)) * 100).toFixed(3)}% of an iteration.`,
    );
  }
  return {
    title: "Tracing overhead: s04 traced against untraced",
    about:
      `s04's loop with its six tools on a scripted conversation of ${TURNS_PER_RUN} model calls (${TURNS_PER_RUN - 1} ` +
      `turns of one read_file call, then an answer), untraced and traced, one run of each next to the other, which ` +
      `goes first alternating. ${o.warmup} pairs of warm-up, then ${o.reps} rounds of ${ITERATIONS.toLocaleString("en")} iterations of each; ` +
      "a round's ratio is its traced wall time over its untraced wall time. The model answers at once, from its own " +
      "process: the hardest setting for the ratio.",
    figures,
    notes,
    problems: [...problems],
  };
}

/** One run of the conversation, traced or not, checked; its wall and CPU time. */
async function timedRun(
  client: Anthropic,
  server: BenchServer,
  cwd: string,
  problems: Set<string>,
  trace?: TraceWriter,
): Promise<RunCost> {
  const messages: MessageParam[] = [{ role: "user", content: readTurnsPrompt(TURNS_PER_RUN - 1) }];
  const started = performance.now();
  const cpu = process.cpuUsage();
  const result = await agentLoop(client, messages, {
    model: "scripted-model",
    cwd,
    maxTurns: TURNS_PER_RUN + 5,
    trace,
  });
  const used = process.cpuUsage(cpu);
  const ms = performance.now() - started;
  const served = await server.take();
  const kind = trace ? "a traced run" : "an untraced run";
  if (
    result.turns !== TURNS_PER_RUN ||
    result.toolCalls !== TURNS_PER_RUN - 1 ||
    result.stopReason !== "final_answer" ||
    result.finalText !== readTurnsAnswer(TURNS_PER_RUN - 1)
  ) {
    problems.add(
      `${kind} did other work: ${result.stopReason} after ${result.turns} model calls and ${result.toolCalls} tool calls, ${JSON.stringify(result.finalText)}`,
    );
  }
  if (served.requests !== result.turns)
    problems.add(`${kind} reported ${result.turns} model calls; the server answered ${served.requests}`);
  if (!isValidHistory(messages)) problems.add(`${kind} left an invalid history`);
  return { ms, cpuMs: (used.user + used.system) / 1000 };
}
