/**
 * The bash tool under a 1 GiB output flood: `head -c 1073741824 /dev/zero | tr '\0' a` through
 * `runBash`, against the same command writing to /dev/null (the time the command itself takes).
 * Each run is a fresh process (`bash-flood-child.ts`), flood, /dev/null and the bare read in rotating order.
 */
import { fileURLToPath } from "node:url";
import { atMost, type Figure, formatValue, type Section, summarize } from "../section.ts";
import { timeCommand } from "../time-command.ts";

/** How the flood scenario runs. */
export interface BashFloodOptions {
  reps: number;
  cwd: string;
  /** Bytes the command prints (default 1 GiB). */
  bytes?: number;
}

interface ChildReport {
  mode: string;
  ms: number;
  rssGrowthBytes: number;
  isError: boolean;
  resultChars: number;
  cutBytes: number;
  tail: string;
}

const MB = 2 ** 20;

/** Run the flood scenario. */
export async function bashFlood(o: BashFloodOptions): Promise<Section> {
  const bytes = o.bytes ?? 2 ** 30;
  const child = fileURLToPath(new URL("../bash-flood-child.ts", import.meta.url));
  const problems: string[] = [];
  const modes = ["flood", "devnull", "bare"] as const;
  const runs: Record<(typeof modes)[number], ChildReport[]> = { flood: [], devnull: [], bare: [] };

  for (let rep = 0; rep < o.reps; rep++) {
    for (let k = 0; k < modes.length; k++) {
      const mode = modes[(k + rep) % modes.length];
      const run = await timeCommand(process.execPath, ["--import", "tsx", child, mode, String(bytes)], o.cwd);
      const report = run.code === 0 ? (JSON.parse(run.stdout) as ChildReport) : undefined;
      if (!report || report.isError) {
        problems.push(
          `${mode} run ${rep + 1} failed: exit ${run.code} ${run.stderr.slice(0, 200)} ${run.stdout.slice(0, 200)}`,
        );
        continue;
      }
      runs[mode].push(report);
    }
  }
  // equal work: the flood's output really crossed into the harness, and was kept bounded
  for (const r of [...runs.flood, ...runs.bare]) {
    if (r.cutBytes < bytes - 64_000) problems.push(`a ${r.mode} run saw only ${r.cutBytes} bytes of ${bytes} go by`);
  }
  for (const r of runs.devnull) {
    if (!r.tail.endsWith("(no output)\n[exit code 0]")) problems.push(`a /dev/null run printed: ${r.tail}`);
  }

  const n = Math.min(runs.flood.length, runs.devnull.length, runs.bare.length);
  const rss = summarize(runs.flood.map((r) => r.rssGrowthBytes / MB));
  const devnullRss = summarize(runs.devnull.map((r) => r.rssGrowthBytes / MB));
  const time = summarize(Array.from({ length: n }, (_, i) => runs.flood[i].ms / runs.devnull[i].ms));
  const floodMs = summarize(runs.flood.map((r) => r.ms));
  const devnullMs = summarize(runs.devnull.map((r) => r.ms));
  const bareMs = summarize(runs.bare.map((r) => r.ms));
  const overBare = summarize(Array.from({ length: n }, (_, i) => runs.flood[i].ms / runs.bare[i].ms));
  const bareOverDevnull = summarize(Array.from({ length: n }, (_, i) => runs.bare[i].ms / runs.devnull[i].ms));
  const figures: Figure[] = [
    {
      label: "peak RSS growth during the flood",
      spread: rss,
      unit: "MB",
      detail: `the /dev/null run: ${formatValue(devnullRss.median, "MB")}`,
      target: atMost(rss, 64, "≤ 64 MB"),
    },
    {
      label: "flood time / the same command > /dev/null",
      spread: time,
      unit: "x",
      detail: `${formatValue(floodMs.median / 1000, "s")} against ${formatValue(devnullMs.median / 1000, "s")}`,
      target: atMost(time, 1.5, "≤ 1.5x"),
    },
    {
      label: "reference: bare Node pipe read / > /dev/null",
      spread: bareOverDevnull,
      unit: "x",
      detail: `${formatValue(bareMs.median / 1000, "s")}: reading 1 GiB through a pipe at all, keeping nothing`,
    },
    {
      label: "flood time / bare Node pipe read",
      spread: overBare,
      unit: "x",
      detail: "what runBash adds over any reader of the pipe",
    },
  ];
  return {
    title: "bash tool under a 1 GiB output flood",
    about:
      `\`runBash("head -c ${bytes} /dev/zero | tr '\\0' a")\`, each run in a fresh Node process, against the same ` +
      `command \`> /dev/null\` and a bare Node read of its pipe; ${o.reps} runs of each, in rotating order. RSS growth is the harness process's peak RSS ` +
      "during the run minus its RSS just before (the commands' own memory is not the harness's). Time ratios per " +
      "round of runs. The reference reads the same pipe in Node and throws every chunk away: the cost of carrying " +
      "1 GiB into any process, which the /dev/null run does not pay.",
    figures,
    notes:
      problems.length === 0
        ? [`Equal work checked: every flood run's result reports ${bytes} bytes minus the ~30 kB kept as cut.`]
        : [],
    problems,
  };
}
