/**
 * A text's sample runs, run as a reader runs them: in the text's order, from the repository root,
 * in one copy of the sample directory its setup block makes and one harness home, so a sample that
 * continues a session finds the one before it. What varies from run to run is normalised: the
 * directory (a copy whose path has the sample's length, as the scripted model estimates tokens from
 * a request's size and the system prompt names the directory), the home, and session ids.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** What `runSamplesInOrder` needs. */
export interface SamplesInOrder {
  /** The samples: a `pnpm sNN ...` command and the output the text shows for it. */
  samples: readonly { command: string; output: string }[];
  /** The sample directory the text names (`/tmp/s11-sample`). */
  sampleDir: string;
  /** The text's setup block, run once by `sh` from the repository root with the directory replaced (it may copy the chapter's files). */
  setup: string;
  /** The repository root: where the commands run, and whose package.json has the `sNN` scripts. */
  repoRoot: string;
  /** s04's `projectSlug`: the folder a project's data gets under the harness home. */
  projectSlug(dir: string): string;
}

/** One sample as it ran: its lines as the text shows them and as the run printed them, normalised. */
export interface SampleRun {
  /** The command as the text gives it. */
  command: string;
  /** The text's output, line by line (trailing spaces dropped). */
  shown: string[];
  /** What the run printed on stdout, line by line, normalised to the text's directory, home and ids. */
  printed: string[];
  /** Its exit status. */
  status: number | null;
  /** What it printed on stderr. */
  stderr: string;
}

/** The UUIDs a session id is shown as. */
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/**
 * Run every sample in order and return each one's lines, shown and printed.
 * Contract: the copy and the home are removed before it returns; a setup that fails throws, with
 * its stderr. The keys and the harness's variables of this process are not passed on (the samples
 * run offline, as on a fresh machine).
 */
export function runSamplesInOrder(options: SamplesInOrder): SampleRun[] {
  const { sampleDir, repoRoot, projectSlug } = options;
  const dir = mkdtempSync(sampleDir.slice(0, -"XXXXXX".length)); // the same length as sampleDir
  const home = mkdtempSync(join(tmpdir(), "samples-home-"));
  try {
    if (dir.length !== sampleDir.length) throw new Error(`${sampleDir} must end in six characters mkdtemp replaces`);
    const ready = spawnSync("sh", ["-c", options.setup.replaceAll(sampleDir, dir)], {
      cwd: repoRoot,
      encoding: "utf8",
    });
    if (ready.status !== 0) throw new Error(`the setup block failed: ${ready.stderr}`);
    const scripts = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")).scripts as Record<string, string>;
    const env = Object.fromEntries(
      Object.entries(process.env).filter(
        ([key]) => !/^(ANTHROPIC_|OPENAI_|HARNESS_|MODEL_ID$|INIT_CWD$|DEBUG$)/.test(key),
      ),
    );
    const ids = new Map<string, string>(); // a real session id → the one the text shows
    const lines = (s: string) =>
      s
        .replaceAll(dir, sampleDir)
        .split("\n")
        .map((line) => line.trimEnd());
    return options.samples.map(({ command, output }) => {
      const script = /pnpm (s\d\d)/.exec(command)?.[0] ?? "";
      const ran = spawnSync(
        "sh",
        ["-c", command.replaceAll(sampleDir, dir).replace(script, scripts[script.slice(5)])],
        {
          cwd: repoRoot,
          encoding: "utf8",
          env: { ...env, NO_COLOR: "1", HARNESS_HOME: home },
        },
      );
      // the i-th session id a run prints is the i-th its text shows
      const shownIds = [...new Set(output.match(UUID) ?? [])];
      [...new Set(ran.stdout.match(UUID) ?? [])].forEach((id, i) => {
        if (!ids.has(id)) ids.set(id, shownIds[i] ?? id);
      });
      let printed = ran.stdout.replaceAll(
        join(home, "projects", projectSlug(dir)),
        `~/.harness/projects/${projectSlug(sampleDir)}`,
      );
      for (const [id, shown] of ids) printed = printed.replaceAll(id, shown);
      return { command, shown: lines(output), printed: lines(printed), status: ran.status, stderr: ran.stderr };
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
}
