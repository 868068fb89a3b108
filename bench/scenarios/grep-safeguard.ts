/**
 * grep's safeguard: s02's grep matches the model's pattern with RE2 (re2js), in time linear in the
 * line, instead of JavaScript's backtracking RegExp. What that costs, and what it buys:
 *
 * - a normal search over a repo-sized tree (generated: 2,000 files, about 10 MB of code-like
 *   text), through the same `searchFiles` (the same walk, the same reads) with RE2 against a plain
 *   RegExp, side by side, alternating;
 * - `^(a+)+$` over a line of 40 a's and a "!": RE2's time to answer, through the real tool, against
 *   RegExp's time at 22 to 28 a's (it doubles with each a), and at 40 in a child process killed after 10 s;
 * - a pattern RE2 refuses (a backreference): time to the error result;
 * - Ctrl-C: the same tree plus the runaway line at 26 a's, the signal aborted 20 ms in; the time
 *   from then to the result. RegExp holds the thread until its match ends, so the abort waits.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { compilePattern, grepTool, type LineMatcher, searchFiles } from "@harness/s02-tool-dispatch";
import { type Figure, formatValue, type Section, summarize } from "../section.ts";

/** How the grep scenario runs. */
export interface GrepSafeguardOptions {
  warmup: number;
  reps: number;
  /** Files in the generated tree (default 2,000). */
  files?: number;
}

const NORMAL_PATTERNS = ["\\b(TODO|FIXME)\\b", "export (const|function) \\w+", "await (value|result)"];
const RUNAWAY = "^(a+)+$";
const REFUSED = "^(a+)+\\1$";
const ABORT_AFTER_MS = 20;
/** The runaway line's lengths RegExp is timed at: each a doubles its time, so these take seconds at most. */
const PLAIN_LENGTHS = [22, 24, 26, 28];
/** How long RegExp gets at 40 a's, in a child process, before it is killed. */
const KILL_AFTER_MS = 10_000;

/** Run the grep comparison. */
export async function grepSafeguard(o: GrepSafeguardOptions): Promise<Section> {
  const base = mkdtempSync(join(tmpdir(), "bench-grep-"));
  const problems: string[] = [];
  const figures: Figure[] = [];
  const notes: string[] = [];
  try {
    const repo = join(base, "repo");
    const megabytes = writeTree(repo, o.files ?? 2000);
    const signal = new AbortController().signal;

    // a normal search: RE2 against RegExp, same walk and reads
    for (const pattern of NORMAL_PATTERNS) {
      const re2 = compilePattern(pattern, false) as LineMatcher;
      const plain = new RegExp(pattern);
      const ms = { re2: [] as number[], plain: [] as number[] };
      const totals = { re2: [] as number[], plain: [] as number[] };
      for (let rep = -o.warmup; rep < o.reps; rep++) {
        for (const which of rep % 2 === 0 ? (["re2", "plain"] as const) : (["plain", "re2"] as const)) {
          const started = performance.now();
          const search = await searchFiles({ cwd: repo, root: repo, matcher: which === "re2" ? re2 : plain, signal });
          const elapsed = performance.now() - started;
          totals[which].push(search.total);
          if (rep >= 0) ms[which].push(elapsed);
        }
      }
      if (totals.re2.some((n, i) => n !== totals.plain[i] || n === 0)) {
        problems.push(
          `UNEQUAL WORK: /${pattern}/ found ${totals.re2.join(",")} lines with RE2, ${totals.plain.join(",")} with RegExp`,
        );
      }
      const ratio = summarize(ms.re2.map((t, i) => t / ms.plain[i]));
      figures.push({
        label: `normal search /${pattern}/: RE2 / RegExp`,
        spread: ratio,
        unit: "x",
        detail: `${formatValue(summarize(ms.re2).median, "ms")} against ${formatValue(summarize(ms.plain).median, "ms")}`,
      });
    }

    // the runaway pattern: RE2 through the real tool at 40 a's; RegExp at 20, 22, 24
    const runawayDir = join(base, "runaway");
    mkdirSync(runawayDir);
    writeFileSync(join(runawayDir, "a.txt"), `${"a".repeat(40)}!\n`);
    const re2Ms: number[] = [];
    for (let rep = -o.warmup; rep < o.reps; rep++) {
      const started = performance.now();
      const result = await grepTool.run({ pattern: RUNAWAY }, { cwd: runawayDir, signal });
      if (rep >= 0) re2Ms.push(performance.now() - started);
      if (result.content !== `No lines match /${RUNAWAY}/.`) problems.push(`RE2 on ${RUNAWAY}: ${result.content}`);
    }
    const plainAt = new Map<number, number>();
    for (const n of PLAIN_LENGTHS) {
      const dir = join(base, `runaway-${n}`);
      mkdirSync(dir);
      writeFileSync(join(dir, "a.txt"), `${"a".repeat(n)}!\n`);
      const runs: number[] = [];
      for (let rep = 0; rep < 3; rep++) {
        const started = performance.now();
        await searchFiles({ cwd: dir, root: dir, matcher: new RegExp(RUNAWAY), signal });
        runs.push(performance.now() - started);
      }
      plainAt.set(n, summarize(runs).median);
    }
    const [shortest, longest] = [PLAIN_LENGTHS[0], PLAIN_LENGTHS[PLAIN_LENGTHS.length - 1]];
    const atLongest = plainAt.get(longest) ?? Number.NaN;
    const perA = (atLongest / (plainAt.get(shortest) ?? Number.NaN)) ** (1 / (longest - shortest));
    const at40 = atLongest * perA ** (40 - longest);
    const re2Runaway = summarize(re2Ms);
    figures.push({
      label: `/${RUNAWAY}/ over 40 a's and "!": RE2 (grep tool), time to answer`,
      spread: re2Runaway,
      unit: "ms",
      detail:
        `RegExp: ${[...plainAt].map(([n, t]) => `${formatValue(t, "ms")} at ${n} a's`).join(", ")}; ` +
        `×${perA.toFixed(2)} per a from ${shortest} to ${longest}, so about ${humanDuration(at40)} at 40; ` +
        `at 40 in a child process: ${await regExpAt40()}`,
    });
    figures.push({
      label: `RegExp at ${longest} a's / RE2 at 40 a's`,
      spread: summarize(re2Ms.map((t) => atLongest / t)),
      unit: "x",
    });

    // a refused pattern: time to the error result
    const refusedMs: number[] = [];
    for (let rep = -o.warmup; rep < o.reps; rep++) {
      const started = performance.now();
      const result = await grepTool.run({ pattern: REFUSED }, { cwd: runawayDir, signal });
      if (rep >= 0) refusedMs.push(performance.now() - started);
      if (!result.content.startsWith("Error [invalid_arguments]")) problems.push(`${REFUSED}: ${result.content}`);
    }
    figures.push({
      label: `/${REFUSED}/ (a backreference): time to the error result`,
      spread: summarize(refusedMs),
      unit: "ms",
    });

    // Ctrl-C: abort 20 ms in, over the tree with a runaway line (26 a's) searched first
    const both = join(base, "abort");
    mkdirSync(join(both, "0-runaway"), { recursive: true });
    writeFileSync(join(both, "0-runaway", "a.txt"), `${"a".repeat(26)}!\n`);
    writeTree(join(both, "repo"), o.files ?? 2000);
    const abortMs = { re2: [] as number[], plain: [] as number[] };
    for (let rep = 0; rep < Math.min(o.reps, 5); rep++) {
      for (const which of ["re2", "plain"] as const) {
        const controller = new AbortController();
        const matcher = which === "re2" ? (compilePattern(RUNAWAY, false) as LineMatcher) : new RegExp(RUNAWAY);
        const started = performance.now();
        const running = searchFiles({ cwd: both, root: both, matcher, signal: controller.signal });
        const aborted = sleep(ABORT_AFTER_MS).then(() => {
          controller.abort();
          return performance.now();
        });
        const search = await running;
        const ended = performance.now();
        if (!search.interrupted)
          problems.push(`${which}: the search ended before the abort, after ${ended - started} ms`);
        // from the moment the abort was due (its timer fires late while the thread is held) to the result
        abortMs[which].push(ended - Math.min(await aborted, started + ABORT_AFTER_MS));
      }
    }
    figures.push({
      label: `Ctrl-C ${ABORT_AFTER_MS} ms into a search over the tree and a runaway line (26 a's): abort to result, RE2`,
      spread: summarize(abortMs.re2),
      unit: "ms",
      detail: `RegExp: ${formatValue(summarize(abortMs.plain).median, "ms")} (the abort waits for the match to end)`,
    });
    notes.push(
      `The tree: ${o.files ?? 2000} files in 50 directories, ${megabytes.toFixed(1)} MB, with a .gitignore; ` +
        `${o.warmup} warm-up pairs, then ${o.reps} counted, alternating which engine goes first.`,
    );
    if (problems.length === 0)
      notes.push("Equal work checked: RE2 and RegExp found the same number of lines, every run.");
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
  return {
    title: "grep: RE2 against a backtracking RegExp",
    about:
      "s02's `searchFiles` (walk honouring .gitignore, files read a chunk at a time, each line tested) with its RE2 " +
      "matcher against the same search with JavaScript's RegExp. Ratios per repetition, RE2 time over RegExp time. " +
      `Then \`${RUNAWAY}\` through the grep tool (RE2) on a line of 40 a's and "!", against RegExp at ${PLAIN_LENGTHS.join(", ")} a's; a ` +
      `refused backreference; and an abort ${ABORT_AFTER_MS} ms into a search that meets a runaway line first.`,
    figures,
    notes,
    problems,
  };
}

/** Write a tree of code-like files under `root`; returns its size in MB. */
function writeTree(root: string, files: number): number {
  const words = ["const", "function", "return", "import", "export", "value", "result", "handler", "await", "items"];
  let seed = 7;
  const next = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  let bytes = 0;
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, ".gitignore"), "node_modules/\n*.log\n");
  for (let f = 0; f < files; f++) {
    const dir = join(root, `pkg${f % 50}`, "src");
    mkdirSync(dir, { recursive: true });
    const lines: string[] = [];
    for (let l = 0; l < 120; l++) {
      const picked = Array.from({ length: 3 + next(8) }, () => words[next(words.length)]);
      const comment = next(100) === 0 ? " // TODO: tidy" : "";
      lines.push(`${"  ".repeat(next(4))}${picked.join(" ")};${comment}`);
    }
    const text = `${lines.join("\n")}\n`;
    writeFileSync(join(dir, `file${f}.ts`), text);
    bytes += text.length;
  }
  return bytes / 2 ** 20;
}

/** A long time in the unit that reads best. */
function humanDuration(ms: number): string {
  const units: [string, number][] = [
    ["years", 365 * 86_400_000],
    ["days", 86_400_000],
    ["hours", 3_600_000],
    ["minutes", 60_000],
    ["s", 1000],
  ];
  const [unit, size] = units.find(([, size]) => ms >= 2 * size) ?? ["ms", 1];
  return `${(ms / size).toFixed(0)} ${unit}`;
}

/** `^(a+)+$` on 40 a's and "!" with RegExp in a child process: its time, or that it was killed still running. */
async function regExpAt40(): Promise<string> {
  const started = performance.now();
  const child = spawn(process.execPath, ["-e", `/${RUNAWAY}/.test("${"a".repeat(40)}!")`], { stdio: "ignore" });
  const timer = setTimeout(() => child.kill("SIGKILL"), KILL_AFTER_MS);
  const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.on("exit", (_code, sig) => resolve(sig)));
  clearTimeout(timer);
  const elapsed = formatValue((performance.now() - started) / 1000, "s");
  return signal === "SIGKILL" ? `still running after ${elapsed}, killed` : `${elapsed}`;
}
