/**
 * Cold start: `pnpm s01 --offline "<prompt>"` from the repository root, start to exit, against a
 * bare `node -e ''`. Also the same without pnpm (`node --import tsx s01-agent-loop/src/main.ts`),
 * which separates pnpm's own start-up from the chapter's, and `node --import tsx -e ''`, which
 * separates tsx's. Interleaved, after warm-up runs.
 */
import { type Figure, formatValue, type Section, summarize } from "../section.ts";
import { type TimedCommand, timeCommand } from "../time-command.ts";

/** How the cold-start scenario runs. */
export interface ColdStartOptions {
  warmup: number;
  reps: number;
  repoRoot: string;
}

const PROMPT = "What is the current git branch?";

/** Run the cold-start comparison. */
export async function coldStart(o: ColdStartOptions): Promise<Section> {
  const commands: { label: string; run: () => Promise<TimedCommand> }[] = [
    { label: "node -e ''", run: () => timeCommand(process.execPath, ["-e", ""], o.repoRoot) },
    {
      label: "node --import tsx -e '' (tsx alone)",
      run: () => timeCommand(process.execPath, ["--import", "tsx", "-e", ""], o.repoRoot),
    },
    {
      label: "node --import tsx s01-agent-loop/src/main.ts --offline",
      run: () =>
        timeCommand(
          process.execPath,
          ["--import", "tsx", "s01-agent-loop/src/main.ts", "--offline", PROMPT],
          o.repoRoot,
        ),
    },
    { label: "pnpm s01 --offline", run: () => timeCommand("pnpm", ["s01", "--offline", PROMPT], o.repoRoot) },
  ];
  const ms: number[][] = commands.map(() => []);
  const problems: string[] = [];
  for (let rep = -o.warmup; rep < o.reps; rep++) {
    for (let k = 0; k < commands.length; k++) {
      const i = (k + rep + o.warmup) % commands.length;
      const run = await commands[i].run();
      if (run.code !== 0) problems.push(`${commands[i].label} exited ${run.code}: ${run.stderr.slice(0, 300)}`);
      if (rep >= 0) ms[i].push(run.ms);
    }
  }
  const figures: Figure[] = commands.slice(1).map((c, k) => {
    const i = k + 1;
    return {
      label: `${c.label} / node -e ''`,
      spread: summarize(ms[i].map((t, rep) => t / ms[0][rep])),
      unit: "x",
      detail: `${formatValue(summarize(ms[i]).median, "ms")} against ${formatValue(summarize(ms[0]).median, "ms")}`,
    };
  });
  return {
    title: "Cold start to exit: s01 offline",
    about:
      `\`${commands[3].label} "${PROMPT}"\` from the repository root, start to exit (one real bash call), against ` +
      `\`node -e ''\`; ${o.reps} interleaved runs of each after ${o.warmup} warm-up rounds. The issue asks for the ` +
      "figure, with no target. tsx alone shows how much of it is compiling TypeScript at load time.",
    figures,
    notes: [],
    problems,
  };
}
