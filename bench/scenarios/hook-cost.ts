/**
 * What hooks cost (s06). First, one tool call with one matching no-op PreToolUse hook (`true`)
 * against the same call with none: the hook's price is a process (bash) per call. The call is a
 * bash tool call (`echo k` through runBash, itself a process) and an in-process read of a small
 * file, so the added time shows both as a ratio and in milliseconds.
 *
 * Then N hooks on one event: N hooks that each take 200 ms (`sleep 0.2`) through `runHooks`,
 * which starts them all at once, against the same N run one by one (runHook after runHook), each
 * against one such hook. And N no-op hooks the same two ways, which is the price of starting N
 * processes at once on this machine.
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  combineHookOutcomes,
  type HookCommand,
  type HookVerdict,
  preToolUseInput,
  readHookRun,
  runHook,
  runHooks,
} from "@harness/s06-hooks";
import { runBash, type ToolCall } from "@harness/shared";
import { type Figure, formatDelta, formatValue, type Section, summarize } from "../section.ts";

/** How the hook scenario runs. */
export interface HookCostOptions {
  warmup: number;
  reps: number;
  /** Hooks on one event in the second part (default 8). */
  hooks?: number;
}

const hook = (command: string): HookCommand => ({
  event: "PreToolUse",
  matcher: "",
  command,
  timeoutMs: 30_000,
  source: "local",
  file: ".harness/settings.local.json",
});

/** Run the hook scenario. */
export async function hookCost(o: HookCostOptions): Promise<Section> {
  const n = o.hooks ?? 8;
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), "bench-hooks-")));
  const problems: string[] = [];
  const figures: Figure[] = [];
  try {
    writeFileSync(join(cwd, "notes.txt"), "a small file\n");
    const session = { sessionId: "bench", cwd };
    const options = { cwd, runProjectHooks: true };

    // part 1: a call with one no-op hook against a call with none
    const calls: { label: string; call: ToolCall; run: () => Promise<string> }[] = [
      {
        label: "bash call (echo k)",
        call: { id: "toolu_1", name: "bash", input: { command: "echo k" } },
        run: async () => (await runBash("echo k", { cwd })).content,
      },
      {
        label: "in-process read",
        call: { id: "toolu_2", name: "read_file", input: { path: "notes.txt" } },
        run: async () => readFileSync(join(cwd, "notes.txt"), "utf8"),
      },
    ];
    for (const { label, call, run } of calls) {
      const input = preToolUseInput(session, call);
      const ms: Record<"none" | "one", number[]> = { none: [], one: [] };
      for (let rep = -o.warmup; rep < o.reps; rep++) {
        for (const mode of rep % 2 === 0 ? (["none", "one"] as const) : (["one", "none"] as const)) {
          const hooks = mode === "one" ? [hook("true")] : [];
          const started = performance.now();
          const verdict = await runHooks(hooks, input, options);
          const output = await run();
          const elapsed = performance.now() - started;
          // equal work: the call ran, and the hook (when there was one) ran and passed
          if (verdict.runs.length !== hooks.length || verdict.notices.length > 0 || output === "") {
            problems.push(`${label}, ${mode} hook: ${verdict.runs.length} runs, ${verdict.notices.join("; ")}`);
          }
          if (rep >= 0) ms[mode].push(elapsed);
        }
      }
      const ratio = summarize(ms.one.map((t, i) => t / ms.none[i]));
      const none = summarize(ms.none).median;
      const one = summarize(ms.one).median;
      figures.push({
        label: `${label}: one no-op hook / no hook`,
        spread: ratio,
        unit: "x",
        detail: `${formatValue(one, "ms")} against ${formatValue(none, "ms")} (${formatDelta(one - none, "ms")} per call for the hook's process)`,
      });
    }

    // part 2: N hooks on one event, at once against one by one
    const input = preToolUseInput(session, { id: "toolu_3", name: "bash", input: { command: "ls" } });
    const oneByOne = async (hooks: HookCommand[]): Promise<HookVerdict> => {
      const results = [];
      for (const h of hooks) {
        const run = await runHook(h, input, options);
        results.push({ run, outcome: readHookRun(run, "PreToolUse") });
      }
      return combineHookOutcomes("PreToolUse", results);
    };
    for (const command of ["sleep 0.2", "true"]) {
      const ms: Record<"one" | "atOnce" | "oneByOne", number[]> = { one: [], atOnce: [], oneByOne: [] };
      const modes = ["one", "atOnce", "oneByOne"] as const;
      for (let rep = -o.warmup; rep < o.reps; rep++) {
        for (let k = 0; k < modes.length; k++) {
          const mode = modes[(k + rep + o.warmup) % modes.length]; // rotate the order each repetition
          const hooks = Array.from({ length: mode === "one" ? 1 : n }, (_, i) => hook(`${command} # ${i}`));
          const started = performance.now();
          const verdict = mode === "oneByOne" ? await oneByOne(hooks) : await runHooks(hooks, input, options);
          const elapsed = performance.now() - started;
          if (verdict.runs.length !== hooks.length || verdict.runs.some((r) => r.exitCode !== 0)) {
            problems.push(`${command}, ${mode}: ${verdict.runs.length} of ${hooks.length} hooks ran and passed`);
          }
          if (rep >= 0) ms[mode].push(elapsed);
        }
      }
      const medians = `${n} at once ${formatValue(summarize(ms.atOnce).median, "ms")}, one by one ${formatValue(summarize(ms.oneByOne).median, "ms")}, 1 hook ${formatValue(summarize(ms.one).median, "ms")}`;
      figures.push(
        {
          label: `${n} × \`${command}\` at once / 1 hook`,
          spread: summarize(ms.atOnce.map((t, i) => t / ms.one[i])),
          unit: "x",
          detail: medians,
        },
        {
          label: `${n} × \`${command}\` one by one / at once`,
          spread: summarize(ms.oneByOne.map((t, i) => t / ms.atOnce[i])),
          unit: "x",
          detail:
            command === "true"
              ? "a no-op hook is all process start-up, which is CPU work: at once saves only what spare cores allow"
              : `each hook mostly waits: one by one is about ${n}x one hook, at once about 1x`,
        },
      );
    }
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
  return {
    title: "Hooks",
    about:
      "s06's runner. One tool call (bash `echo k` through runBash, or an in-process read of a small file) after " +
      "`runHooks` for PreToolUse with one matching no-op hook (`true`) against no hook, alternating; the ratio is per " +
      `pair. Then ${n} hooks on one event through \`runHooks\` (all at once) against the same ${n} through runHook one ` +
      "after another, and against one hook, in rotating order: hooks of 200 ms (`sleep 0.2`), then no-op hooks. " +
      `${o.warmup} warm-up repetitions, then ${o.reps} counted.`,
    figures,
    notes: [
      ...(problems.length === 0
        ? ["Equal work checked: every call ran, and every hook ran and exited 0, in every repetition."]
        : []),
      "No target is stated. What carries over to a real model is the absolute cost: a few milliseconds of process " +
        "start-up per matching hook per call (the ratio against an in-process read is large only because the read " +
        "costs microseconds), and hooks that wait (tests, network, a formatter on a big file) cost about the slowest " +
        "one when they share an event, not the sum.",
    ],
    problems,
  };
}
