/**
 * Streaming latency: from the moment a text delta leaves the scripted server to the moment the
 * loop has printed it. The server notes when it hands each text_delta event to its socket; the
 * loop's text callback writes the delta to /dev/null and notes the time. Both clocks are the
 * system-wide monotonic clock, so the two processes' times subtract. The floor iterates the SDK's
 * raw stream and prints each delta; s03 prints from its observer's `text` callback.
 */
import { closeSync, openSync, writeSync } from "node:fs";
import { streamPrompt } from "../bench-brain.ts";
import { type LoopOutcome, s03Contender, streamedFloorLoop } from "../contenders.ts";
import { equalWorkNote, equalWorkProblems } from "../equal-work.ts";
import { type Figure, formatDelta, formatValue, type Section, summarize } from "../section.ts";
import { startBenchServer } from "../start-bench-server.ts";

/** How the streaming scenario runs. */
export interface StreamLatencyOptions {
  /** Characters in the streamed answer (the scripted model sends 24 a delta). */
  chars: number;
  /** Milliseconds between events, so each delta arrives on its own. */
  eventDelayMs: number;
  warmup: number;
  reps: number;
  cwd: string;
}

/** Run the streaming latency comparison. */
export async function streamLatency(o: StreamLatencyOptions): Promise<Section> {
  const server = await startBenchServer();
  const devNull = openSync("/dev/null", "w");
  const printedAt: bigint[] = [];
  const onText = (delta: string) => {
    writeSync(devNull, delta);
    printedAt.push(process.hrtime.bigint());
  };
  try {
    const settings = { url: server.url, cwd: o.cwd, maxTurns: 3, onText };
    const contenders = [streamedFloorLoop(settings), s03Contender(settings)];
    const prompt = streamPrompt(o.chars, o.eventDelayMs);
    const medians: number[][] = contenders.map(() => []); // per run: median latency in µs
    const worst: number[][] = contenders.map(() => []); // per run: max latency in µs
    const outcomes = new Map<string, LoopOutcome[]>(contenders.map((c) => [c.name, []]));
    const problems: string[] = [];
    let expectedText = "";

    for (let rep = -o.warmup; rep < o.reps; rep++) {
      const order = rep % 2 === 0 ? [0, 1] : [1, 0];
      for (const i of order) {
        printedAt.length = 0;
        const outcome = await contenders[i].run(prompt);
        const { textDeltaSentAt: sentAt } = await server.take();
        outcomes.get(contenders[i].name)?.push(outcome);
        expectedText ||= outcome.finalText;
        if (sentAt.length !== printedAt.length || sentAt.length === 0) {
          problems.push(
            `${contenders[i].name}: the server sent ${sentAt.length} text deltas, ${printedAt.length} were printed`,
          );
          continue;
        }
        const latencies = sentAt.map((sent, k) => Number(printedAt[k] - sent) / 1000);
        if (rep >= 0) {
          medians[i].push(summarize(latencies).median);
          worst[i].push(summarize(latencies).max);
        }
      }
    }
    const expected = { finalText: expectedText, toolCalls: 0, turns: 1 };
    problems.push(...equalWorkProblems(outcomes, expected));
    if (expectedText.length !== o.chars)
      problems.push(`the streamed answer has ${expectedText.length} characters, not ${o.chars}`);

    const deltas = Math.ceil(o.chars / 24);
    const figures: Figure[] = contenders.map((c, i) => ({
      label: `${c.name === contenders[0].name ? "floor: raw SDK stream" : c.name}: delta sent → printed`,
      spread: summarize(medians[i]),
      unit: "µs",
      detail: `worst delta, median over runs: ${formatValue(summarize(worst[i]).median, "µs")}`,
    }));
    const ratio = summarize(medians[1].map((us, rep) => us / medians[0][rep]));
    figures.push({
      label: "s03 over the floor",
      spread: ratio,
      unit: "x",
      detail: `${formatDelta(summarize(medians[1]).median - summarize(medians[0]).median, "µs")} a delta`,
    });
    return {
      title: "Streaming: text delta sent → printed",
      about:
        `One streamed answer of ${o.chars} characters (${deltas} text deltas, ${o.eventDelayMs} ms apart), printed to ` +
        `/dev/null as it arrives. Per run, the median over its deltas of (printed − sent); the table shows min / median / ` +
        `max of those per-run medians over ${o.reps} interleaved runs per loop after ${o.warmup} warm-up runs. ` +
        "The issue states no target for this figure.",
      figures,
      notes: problems.length === 0 ? [equalWorkNote(contenders.length, o.warmup + o.reps, expected)] : [],
      problems,
    };
  } finally {
    closeSync(devNull);
    await server.close();
  }
}
