/**
 * Per-turn overhead over the floor: the same conversation of tool turns through every loop in
 * `contenders.ts`, against the scripted model over HTTP in its own process. Runs are interleaved
 * (each repetition runs every loop once, in an order rotated each time), after warm-up runs that
 * are not counted; a loop's ratio in a repetition is its time per turn over the floor's.
 */

import { readFileSync } from "node:fs";
import { toolTurnsAnswer, toolTurnsPrompt } from "../bench-brain.ts";
import { allContenders, type LoopOutcome } from "../contenders.ts";
import { equalWorkNote, equalWorkProblems } from "../equal-work.ts";
import { atMost, type Figure, formatDelta, formatValue, type Section, summarize } from "../section.ts";
import { startBenchServer } from "../start-bench-server.ts";

/** How the loop comparison runs. */
export interface LoopOverheadOptions {
  /** Tool turns in the conversation (model calls are one more). */
  turns: number;
  warmup: number;
  reps: number;
  cwd: string;
}

/** Run the loop comparison. */
export async function loopOverhead(o: LoopOverheadOptions): Promise<Section> {
  const server = await startBenchServer();
  try {
    const contenders = allContenders({ url: server.url, cwd: o.cwd, maxTurns: o.turns + 5 });
    const prompt = toolTurnsPrompt(o.turns);
    const perTurn: number[][] = contenders.map(() => []);
    const cpuPerTurn: number[][] = contenders.map(() => []); // this process's CPU time: load moves it less
    const outcomes = new Map<string, LoopOutcome[]>(contenders.map((c) => [c.name, []]));
    const problems: string[] = [];

    for (let rep = -o.warmup; rep < o.reps; rep++) {
      const shift = ((rep % contenders.length) + contenders.length) % contenders.length;
      const order = contenders.map((_, i) => (i + shift) % contenders.length);
      for (const i of order) {
        const contender = contenders[i];
        const started = performance.now();
        const cpu = process.cpuUsage();
        const outcome = await contender.run(prompt).catch((error: unknown) => {
          problems.push(`${contender.name} failed: ${error instanceof Error ? error.message : String(error)}`);
          return { finalText: "", toolCalls: Number.NaN, turns: Number.NaN };
        });
        const ms = performance.now() - started;
        const cpuUsed = process.cpuUsage(cpu);
        const served = await server.take();
        if (Number.isNaN(outcome.turns)) {
          if (rep >= 0) {
            perTurn[i].push(Number.NaN);
            cpuPerTurn[i].push(Number.NaN);
          }
          continue;
        }
        outcomes.get(contender.name)?.push(outcome);
        if (served.requests !== outcome.turns) {
          problems.push(
            `${contender.name} reported ${outcome.turns} model calls; the server answered ${served.requests}`,
          );
        }
        if (rep >= 0) {
          perTurn[i].push(ms / outcome.turns);
          cpuPerTurn[i].push((cpuUsed.user + cpuUsed.system) / 1000 / outcome.turns);
        }
      }
    }

    const expected: LoopOutcome = {
      finalText: toolTurnsAnswer(o.turns, `${o.turns}\n[exit code 0]`),
      toolCalls: o.turns,
      turns: o.turns + 1,
    };
    problems.push(...equalWorkProblems(outcomes, expected));

    const floor = perTurn[0];
    const ratio = (i: number) => summarize(perTurn[i].map((ms, rep) => ms / floor[rep]));
    const msPerTurn = (i: number) => summarize(perTurn[i]).median;
    const cpuMsPerTurn = (i: number) => summarize(cpuPerTurn[i]).median;
    const peers = contenders.flatMap((c, i) =>
      c.role === "peer" ? [{ name: c.name.replace(/^peer: /, ""), index: i, median: ratio(i).median }] : [],
    );
    // paired: in how many repetitions loop i took less time than loop j (a median can hide a coin toss)
    const faster = (i: number, j: number) => perTurn[i].filter((ms, rep) => ms < perTurn[j][rep]).length;
    const bestPeer = Math.min(...peers.map((p) => p.median));

    const figures: Figure[] = contenders.map((c, i) => {
      const spread = ratio(i);
      const wall = `${formatValue(msPerTurn(i), "ms")}/turn`;
      const cpu = `CPU ${formatValue(cpuMsPerTurn(i), "ms")}/turn`;
      return {
        label: c.name,
        spread,
        unit: "x",
        detail:
          i === 0
            ? `${wall}; ${cpu}`
            : `${wall} (${formatDelta(msPerTurn(i) - msPerTurn(0), "ms")}); ${cpu} (${formatDelta(cpuMsPerTurn(i) - cpuMsPerTurn(0), "ms")})`,
        target: c.role === "ours" ? atMost(spread, 1.05, "≤ 1.05x of the floor") : undefined,
      };
    });
    contenders.forEach((c, i) => {
      if (c.role !== "ours") return;
      const spread = ratio(i);
      figures.push({
        label: `${c.name} against the peers`,
        spread,
        unit: "x",
        detail: peers
          .map((p) => `${p.name} ${formatValue(p.median, "x")} (faster in ${faster(i, p.index)}/${o.reps} reps)`)
          .join(", "),
        target: atMost(spread, bestPeer, `no worse than either peer (≤ ${formatValue(bestPeer, "x")})`),
      });
    });

    const s03 = contenders.findIndex((c) => c.name.startsWith("s03"));
    const streamed = contenders.findIndex((c) => c.role === "reference");
    const s03OverStreamed = summarize(perTurn[s03].map((ms, rep) => ms / perTurn[streamed][rep]));
    return {
      title: "Loop overhead per turn",
      about:
        `${o.turns} tool turns of one bash call each (\`echo k\`), then a text answer: ${o.turns + 1} model calls per run, ` +
        `the scripted model answering over HTTP on 127.0.0.1 from its own process with no added latency. ` +
        `${o.warmup} warm-up repetitions, then ${o.reps} counted; each repetition runs every loop once, interleaved, ` +
        `in an order rotated each time. Ratio = a loop's time per turn / the floor's in the same repetition.`,
      figures,
      notes: [
        ...(problems.length === 0 ? [equalWorkNote(contenders.length, o.warmup + o.reps, expected)] : []),
        `s03 streams, the floor does not; against the streamed floor s03's ratio is ` +
          `${formatValue(s03OverStreamed.min, "x")} / ${formatValue(s03OverStreamed.median, "x")} / ${formatValue(s03OverStreamed.max, "x")} (min / median / max).`,
        "A turn here costs only the harness, one HTTP round trip and one `bash -c echo`: with a real model " +
          "a turn takes seconds, so the absolute overhead (ms per turn) is the figure to carry over, not the ratio.",
        "Detail: medians of wall time per turn and of this process's CPU time per turn (the model and bash run in " +
          "other processes), each with its difference to the floor. CPU time moves less with the machine's load.",
        `Peers: ${peerVersions()}. The SDK tool runner runs with \`thread: false\` (the whole history each turn, ` +
          "like the others; the scripted model holds no server-side thread); the AI SDK runs generateText with " +
          "`stopWhen: stepCountIs(...)`.",
      ],
      problems,
    };
  } finally {
    await server.close();
  }
}

/** The peers' versions, as bench/package.json pins them. */
function peerVersions(): string {
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
  const deps: Record<string, string> = pkg.dependencies ?? {};
  return ["@anthropic-ai/sdk", "ai", "@ai-sdk/anthropic"].map((name) => `${name} ${deps[name]}`).join(", ");
}
