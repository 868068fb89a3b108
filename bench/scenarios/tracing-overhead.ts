/**
 * What tracing costs the loop: s04's loop on one scripted conversation, untraced and traced,
 * interleaved run by run (which goes first alternates). A round is ITERATIONS iterations of each:
 * runs of 10 model calls, 9 that read a small file with read_file (a cheap, concurrency-safe tool)
 * and an answer. A round's ratio is its traced time over its untraced time.
 *
 * The model answers at once from its own process, so a model call costs only the HTTP round trip
 * and the SDK's parsing: the hardest setting for the ratio. With a real model a call takes hundreds
 * of milliseconds, and the absolute cost per iteration, in the detail, is what carries over.
 *
 * Then the size: one traced run each of 10, 100 and 1,000 turns (read_file turns, then the answer),
 * and the trace's bytes per turn. A trace that writes each request as what is new since the last
 * stays flat; beside it, what the same records would weigh with every request written whole.
 */
import { mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { type SendTurn, sendStreamed } from "@harness/s03-streaming";
import { agentLoop, readTrace, sentRequests, TraceRecorder, TraceWriter } from "@harness/s04-tracing";
import { historyProblems } from "@harness/shared";
import { readTurnsAnswer, readTurnsPrompt, writeReadTurnsFiles } from "../bench-brain.ts";
import { atMost, type Figure, formatDelta, formatValue, type Section, summarize, under } from "../section.ts";
import { type BenchServer, startBenchServer } from "../start-bench-server.ts";

/** Iterations per condition per round. */
export const ITERATIONS = 1000;
/** The target: tracing adds under 2% to loop time. */
export const TARGET_OVERHEAD = 0.02;
/** Model calls (iterations) per run: 9 read_file turns, then the answer. */
const TURNS_PER_RUN = 10;
/** The run lengths whose trace size is measured. */
export const SIZE_TURNS = [10, 100, 1000];
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
  const cwd = join(dir, "work"); // the tools' directory; traces go beside it, as the harness keeps them
  const traces = join(dir, "traces");
  mkdirSync(cwd);
  writeReadTurnsFiles(cwd, Math.max(TURNS_PER_RUN, ...SIZE_TURNS) - 1);
  const server = await startBenchServer();
  const problems = new Set<string>(); // one line per kind of failure, not one per run
  const rounds: { plain: RunCost; traced: RunCost; pairs: number[]; bytes: number }[] = [];
  const sizes: TraceSize[] = [];
  try {
    const client = sendStreamed(new Anthropic({ apiKey: "bench", baseURL: server.url }));
    const run = (trace?: TraceWriter) => timedRun(client, server, cwd, problems, trace);
    const warmupTrace = new TraceWriter("bench-warmup", traces, SECRETS);
    for (let i = 0; i < o.warmup; i++) {
      await run();
      await run(warmupTrace);
    }
    for (let round = 0; round < o.reps; round++) {
      const trace = new TraceWriter(`bench-round-${round}`, traces, SECRETS);
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
    for (const turns of SIZE_TURNS) sizes.push(await traceSize(client, server, cwd, traces, turns, problems));
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
  const tenTurns = sizes.find((size) => size.turns === SIZE_TURNS[0]);
  for (const size of sizes) {
    const perTurn = size.bytes / size.turns / 1024;
    const spread = { min: perTurn, median: perTurn, max: perTurn };
    figures.push({
      label: `trace size per turn, a run of ${size.turns.toLocaleString("en")} turns`,
      spread,
      unit: "KB",
      detail:
        `${formatValue(size.bytes / 1024, "KB")} in all; with every request written whole: ` +
        `${formatValue(size.wholeBytes / size.turns / 1024, "KB")} per turn, ${formatValue(size.wholeBytes / 2 ** 20, "MB")} in all`,
      target:
        size === tenTurns || !tenTurns
          ? undefined
          : atMost(
              spread,
              tenTurns.bytes / tenTurns.turns / 1024,
              `≤ the 10-turn run's size per turn (flat, not growing)`,
            ),
    });
  }
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
      `process: the hardest setting for the ratio. Then one traced run each of ${SIZE_TURNS.map((t) => t.toLocaleString("en")).join(", ")} ` +
      "turns (read_file turns, then the answer), each in a trace of its own: the trace's bytes divided by its turns.",
    figures,
    notes,
    problems: [...problems],
  };
}

/** Each trace's listener on the loop's events, made once per trace as main.ts makes it once per session. */
const recorders = new Map<TraceWriter, TraceRecorder>();
function recorderOf(trace: TraceWriter): TraceRecorder {
  const recorder = recorders.get(trace) ?? new TraceRecorder(trace);
  recorders.set(trace, recorder);
  return recorder;
}

/** One run of the conversation, traced or not, checked; its wall and CPU time. */
async function timedRun(
  client: SendTurn,
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
    emit: trace ? recorderOf(trace).record : undefined,
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
  if (historyProblems(messages).length > 0) problems.add(`${kind} left an invalid history`);
  return { ms, cpuMs: (used.user + used.system) / 1000 };
}

/** One traced run's trace size. */
interface TraceSize {
  turns: number;
  bytes: number;
  /** What the same records would weigh with every request written whole. */
  wholeBytes: number;
}

/** One traced run of `turns` model calls in a trace of its own: its size, and its size with whole requests. */
async function traceSize(
  client: SendTurn,
  server: BenchServer,
  cwd: string,
  dir: string,
  turns: number,
  problems: Set<string>,
): Promise<TraceSize> {
  const writer = new TraceWriter(`bench-size-${turns}`, dir, SECRETS);
  const messages: MessageParam[] = [{ role: "user", content: readTurnsPrompt(turns - 1) }];
  const result = await agentLoop(client, messages, {
    model: "scripted-model",
    cwd,
    maxTurns: turns + 5,
    emit: new TraceRecorder(writer).record,
  });
  const served = await server.take();
  if (result.turns !== turns || served.requests !== turns || result.finalText !== readTurnsAnswer(turns - 1)) {
    problems.add(`the ${turns}-turn run did other work: ${result.stopReason} after ${result.turns} model calls`);
  }
  const trace = readTrace(writer.path);
  let wholeBytes = 0;
  for (const record of trace.records) if (record.type === "result") wholeBytes += JSON.stringify(record).length + 1;
  for (const { record, request } of sentRequests(trace))
    wholeBytes += JSON.stringify({ ...record, request }).length + 1;
  const recorded = trace.records.filter((r) => r.type === "iteration").length;
  if (recorded !== turns) problems.add(`the ${turns}-turn trace holds ${recorded} iterations`);
  const bytes = statSync(writer.path).size;
  rmSync(writer.path);
  return { turns, bytes, wholeBytes };
}
