/**
 * What a permission decision costs: s05's `decide` on 1,000 realistic shell lines
 * (data/shell-lines.json, made by make-shell-corpus.ts), against what the call it guards costs:
 * `runBash("true")`, the cheapest bash call there is, measured in the same run, round by round.
 *
 * Each round decides every corpus line once (default mode, a plausible user's rules, the default
 * denies on) and runs `true` through runBash BASH_CALLS times; which goes first alternates. A
 * round's share is its mean decision time over its mean bash call time.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runBash, type ToolCall } from "@harness/shared";
import { CORPUS_FILE } from "../make-shell-corpus.ts";
import { type Figure, formatValue, type Section, summarize } from "../section.ts";

/** bash calls per round. */
const BASH_CALLS = 40;

/** A plausible user's settings: everyday programs allowed, deletion and force-pushes denied. */
const PERMISSIONS = {
  allow: [
    "Bash(git status:*)",
    "Bash(git diff:*)",
    "Bash(git log:*)",
    "Bash(npm test:*)",
    "Bash(npm run:*)",
    "Bash(npx vitest:*)",
    "Bash(ls:*)",
    "Bash(cat:*)",
    "Bash(grep:*)",
    "Bash(rg:*)",
    "Bash(find:*)",
    "Bash(wc:*)",
    "Bash(head:*)",
    "Bash(tail:*)",
    "Edit(src/**)",
  ],
  ask: ["Bash(git push:*)", "Bash(docker:*)"],
  deny: ["Bash(rm -rf:*)", "Bash(git push --force:*)", "Bash(curl:*)", "Read(secrets/**)"],
};

/** How the permissions scenario runs. */
export interface PermissionDecisionsOptions {
  /** Passes over the corpus before the rounds, not counted. */
  warmup: number;
  /** Rounds. */
  reps: number;
}

/** Run the decision-cost measurement. */
export async function permissionDecisions(o: PermissionDecisionsOptions): Promise<Section> {
  const importStarted = performance.now();
  // imported here so the first import (the grammar's WebAssembly compiled and loaded) is timed
  const { decide, loadPermissionSettings, shellParserReady } = await import("@harness/s05-permissions");
  await shellParserReady();
  const importMs = performance.now() - importStarted;

  const lines = JSON.parse(readFileSync(CORPUS_FILE, "utf8")) as string[];
  const cwd = mkdtempSync(join(tmpdir(), "bench-permissions-"));
  const problems: string[] = [];
  try {
    mkdirSync(join(cwd, ".harness"));
    mkdirSync(join(cwd, "src"));
    writeFileSync(join(cwd, ".harness", "settings.json"), JSON.stringify({ permissions: PERMISSIONS }));
    writeFileSync(join(cwd, ".env"), "KEY=bench\n");
    for (const file of ["index.ts", "agent-loop.ts", "util.ts"]) writeFileSync(join(cwd, "src", file), "");
    const settings = loadPermissionSettings(cwd);
    if (settings instanceof Error) throw settings;
    const calls: ToolCall[] = lines.map((command, i) => ({ id: `toolu_${i}`, name: "bash", input: { command } }));

    const cpuUs: number[] = [];
    const decideAll = () => {
      const started = performance.now();
      const cpu = process.cpuUsage();
      for (const call of calls) decide(call, settings, "default", cwd);
      const used = process.cpuUsage(cpu);
      cpuUs.push((used.user + used.system) / calls.length);
      return ((performance.now() - started) * 1000) / calls.length; // µs per call
    };
    const bashCalls = async () => {
      const started = performance.now();
      for (let i = 0; i < BASH_CALLS; i++) {
        const result = await runBash("true", { cwd });
        if (result.isError) problems.push(`runBash("true") failed: ${result.content}`);
      }
      return ((performance.now() - started) * 1000) / BASH_CALLS;
    };

    for (let i = 0; i < o.warmup; i++) decideAll();
    cpuUs.length = 0;
    await runBash("true", { cwd });
    const decisionUs: number[] = [];
    const bashUs: number[] = [];
    for (let round = 0; round < o.reps; round++) {
      if (round % 2 === 0) {
        decisionUs.push(decideAll());
        bashUs.push(await bashCalls());
      } else {
        bashUs.push(await bashCalls());
        decisionUs.push(decideAll());
      }
    }
    const shares = decisionUs.map((us, i) => us / bashUs[i]);

    // one more pass, line by line: the spread over lines and what the engine decided
    const perLine = calls.map((call) => {
      const started = performance.now();
      const decision = decide(call, settings, "default", cwd);
      return { us: (performance.now() - started) * 1000, decision, line: call.input.command as string };
    });
    const counts = { allow: 0, ask: 0, deny: 0 };
    for (const { decision } of perLine) counts[decision.behavior]++;
    const sorted = [...perLine].sort((a, b) => a.us - b.us);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))].us;
    const slowest = sorted[sorted.length - 1];

    const decisionSpread = summarize(decisionUs);
    const bashSpread = summarize(bashUs);
    const figures: Figure[] = [
      {
        label: "decide, mean per call over the corpus",
        spread: decisionSpread,
        unit: "µs",
        detail: `${lines.length} lines a round; per line: median ${at(0.5).toFixed(0)} µs, p90 ${at(0.9).toFixed(0)} µs, p99 ${at(0.99).toFixed(0)} µs`,
      },
      {
        label: "decide, this process's CPU per call",
        spread: summarize(cpuUs),
        unit: "µs",
        detail: "CPU time moves less than wall time when other work shares the machine",
      },
      {
        label: 'runBash("true"), per call',
        spread: { min: bashSpread.min / 1000, median: bashSpread.median / 1000, max: bashSpread.max / 1000 },
        unit: "ms",
        detail: `${BASH_CALLS} calls a round`,
      },
      {
        label: "a decision as a share of a bash call",
        spread: summarize(shares),
        unit: "x",
        detail: `${formatValue(decisionSpread.median, "µs")} of ${formatValue(bashSpread.median / 1000, "ms")} (median round)`,
      },
    ];
    return {
      title: "Permission decisions (s05)",
      about:
        `s05's \`decide\` on ${lines.length} realistic shell lines (bench/data/shell-lines.json, made by ` +
        "bench/make-shell-corpus.ts): each line parsed by tree-sitter-bash, split into simple commands, unwrapped, " +
        "matched against a plausible user's rules and the default denies, its file words checked and its globs " +
        `expanded against a small project on disk. Beside it, \`runBash("true")\` ${BASH_CALLS} times, the cheapest bash ` +
        `call. ${o.reps} rounds after ${o.warmup} warm-up passes, alternating which goes first; a round's share is its ` +
        "mean decision over its mean bash call.",
      figures,
      notes: [
        `Decisions on the corpus: ${counts.allow} allow, ${counts.ask} ask, ${counts.deny} deny.`,
        `Slowest line (${slowest.us.toFixed(0)} µs): \`${slowest.line.replace(/\n/g, " ⏎ ").slice(0, 100)}\`.`,
        `Loading the engine (the first import: the grammar's WebAssembly compiled and loaded once) took ${importMs.toFixed(0)} ms in this process.`,
      ],
      problems: [...new Set(problems)],
    };
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}
