/**
 * `pnpm bench`: run every scenario, print the report, and write bench/results/report.md and
 * bench/results/chart.svg. Options:
 *
 *   --quick          skip the slowest scenario (`pnpm test` cold against cached)
 *   --only a,b       run only these scenarios (names below)
 *   --reps N         repetitions for the loop, streaming, adapter and first-request scenarios
 *
 * A scenario whose compared loops did unequal work, or whose runs failed, is reported as a
 * PROBLEM and the run exits 1 after writing the report. A missed target is reported, not failed:
 * this is a measurement, not a test.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { renderChart } from "./render-chart.ts";
import { renderReport } from "./render-report.ts";
import { adapterCost } from "./scenarios/adapter-cost.ts";
import { bashFlood } from "./scenarios/bash-flood.ts";
import { coldStart } from "./scenarios/cold-start.ts";
import { compactionBenefit } from "./scenarios/compaction.ts";
import { dispatchConcurrency } from "./scenarios/dispatch-concurrency.ts";
import { firstRequest } from "./scenarios/first-request.ts";
import { grepSafeguard } from "./scenarios/grep-safeguard.ts";
import { hookCost } from "./scenarios/hook-cost.ts";
import { loopOverhead } from "./scenarios/loop-overhead.ts";
import { mcp } from "./scenarios/mcp.ts";
import { permissionDecisions } from "./scenarios/permission-decisions.ts";
import { planning } from "./scenarios/planning.ts";
import { promptCaching } from "./scenarios/prompt-caching.ts";
import { sessionResume } from "./scenarios/session-resume.ts";
import { skills } from "./scenarios/skills.ts";
import { streamLatency } from "./scenarios/stream-latency.ts";
import { subagents } from "./scenarios/subagents.ts";
import { testCache } from "./scenarios/test-cache.ts";
import { traceView } from "./scenarios/trace-view.ts";
import { tracingOverhead } from "./scenarios/tracing-overhead.ts";
import type { Section } from "./section.ts";

const benchDir = dirname(fileURLToPath(import.meta.url));
const repoRoot = dirname(benchDir);
const args = process.argv.slice(2);
const flag = (name: string) => {
  const i = args.indexOf(name);
  return i === -1 ? undefined : (args[i + 1] ?? "");
};
const quick = args.includes("--quick");
const repsFlag = flag("--reps");
const reps = repsFlag === undefined ? undefined : Number(repsFlag);
const only = flag("--only")?.split(",");

const scenarios: { name: string; slow?: boolean; run: () => Promise<Section> }[] = [
  { name: "loops", run: () => loopOverhead({ turns: 10, warmup: 3, reps: reps ?? 25, cwd: repoRoot }) },
  {
    name: "stream",
    run: () => streamLatency({ chars: 2400, eventDelayMs: 2, warmup: 3, reps: reps ?? 15, cwd: repoRoot }),
  },
  { name: "flood", run: () => bashFlood({ reps: 4, cwd: repoRoot }) },
  { name: "dispatch", run: () => dispatchConcurrency({ warmup: 2, reps: 9, cwd: repoRoot }) },
  { name: "grep", run: () => grepSafeguard({ warmup: 2, reps: 9 }) },
  { name: "tracing", run: () => tracingOverhead({ warmup: 20, reps: 7 }) },
  { name: "hooks", run: () => hookCost({ warmup: 3, reps: 15 }) },
  { name: "trace-view", run: () => traceView({ warmup: 2, reps: 7 }) },
  { name: "permissions", run: () => permissionDecisions({ warmup: 2, reps: 7 }) },
  { name: "sessions", run: () => sessionResume({ warmup: 2, reps: 7 }) },
  { name: "compaction", run: () => compactionBenefit({ warmup: 2, reps: 9 }) },
  { name: "adapters", run: () => adapterCost({ turns: 9, warmup: 3, reps: reps ?? 15 }) },
  { name: "caching", run: () => promptCaching({ turns: 50 }) },
  { name: "planning", run: () => planning({ warmup: 2, reps: 9 }) },
  { name: "subagents", run: () => subagents({ warmup: 1, reps: 5 }) },
  { name: "skills", run: () => skills({ warmup: 2, reps: 9 }) },
  { name: "mcp", run: () => mcp({ warmup: 1, reps: 5, calls: 50, repoRoot }) },
  { name: "cold-start", run: () => coldStart({ warmup: 2, reps: 10, repoRoot }) },
  { name: "cold-start", run: () => firstRequest({ turns: 10, warmup: 1, reps: reps ?? 7, repoRoot }) },
  { name: "test-cache", slow: true, run: () => testCache({ reps: 3, repoRoot }) },
];

const sections: Section[] = [];
const skipped: string[] = [];
for (const scenario of scenarios) {
  if ((only && !only.includes(scenario.name)) || (quick && scenario.slow)) {
    skipped.push(scenario.name);
    continue;
  }
  process.stderr.write(`bench: ${scenario.name} ...\n`);
  const started = performance.now();
  const loadBefore = loadavg()[0];
  const section = await scenario.run().catch(
    (error: unknown): Section => ({
      title: scenario.name,
      about: "The scenario did not finish.",
      figures: [],
      notes: [],
      problems: [`the scenario threw: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`],
    }),
  );
  // other work on the machine slows every loop alike but widens the spread: say how busy it was
  section.notes.push(
    `Load average (1 min) on this ${cpus().length}-core machine: ${loadBefore.toFixed(1)} at the start of this ` +
      `scenario, ${loadavg()[0].toFixed(1)} at its end.`,
  );
  sections.push(section);
  process.stderr.write(`bench: ${scenario.name} done in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
}

const report = renderReport(sections, {
  command: `pnpm bench${args.length ? ` ${args.join(" ")}` : ""}`,
  date: new Date().toISOString(),
  machine: `${cpus().length} × ${cpus()[0]?.model.trim() ?? "cpu"}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${process.platform}`,
  skipped,
});
const resultsDir = join(benchDir, "results");
mkdirSync(resultsDir, { recursive: true });
writeFileSync(join(resultsDir, "report.md"), report);
writeFileSync(join(resultsDir, "chart.svg"), renderChart(sections));
process.stdout.write(`${report}\nWritten: bench/results/report.md, bench/results/chart.svg\n`);

const problems = sections.flatMap((s) => s.problems);
if (problems.length > 0) {
  process.stderr.write(`\nbench: ${problems.length} PROBLEM(S): the comparison above is not valid\n`);
  for (const p of problems) process.stderr.write(`  ${p}\n`);
  process.exitCode = 1;
}
