/**
 * A text's sample runs, run as a reader runs them: in the text's order, from the repository root,
 * in one copy of the sample directory its setup block makes and one harness home, so a sample that
 * continues a session finds the one before it, and one that changes a file leaves it changed for
 * the next. A sample is any shell block: each `pnpm NAME` in it runs the root package.json's script
 * NAME, `~/.harness` is the home, and other commands (a reset line, `node test.js`) run as written.
 * What varies from run to run is normalised: the directory (a copy whose path has the sample's
 * length, as the scripted model estimates tokens from a request's size and the system prompt names
 * the directory), the home, and session ids.
 */
import { spawn, spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** What `runSamplesInOrder` needs. */
export interface SamplesInOrder {
  /**
   * The samples: a shell block (a `pnpm sNN ...` command, a reset line) and the output the text
   * shows for it ("" for none), and the stderr where the text shows it too (its session ids count).
   * One the reader leaves running while the next runs "from a second terminal" is `background`: the
   * next starts once it has printed its output and runs a command in the sample directory.
   */
  samples: readonly { command: string; output: string; stderr?: string; background?: boolean }[];
  /** The sample directory the text names (`/tmp/s11-sample`). */
  sampleDir: string;
  /** The text's setup block, run once by `sh` from the repository root with the directory replaced (it may copy the chapter's files). */
  setup: string;
  /** The repository root: where the commands run, and whose package.json has the `sNN` scripts. */
  repoRoot: string;
  /** s04's `projectSlug`: the folder a project's data gets under the harness home (none before s04). */
  projectSlug?: (dir: string) => string;
  /** Variables every run gets besides the cleaned environment (s01's `INIT_CWD`: a stand-in root on branch main). */
  env?: Record<string, string>;
}

/** One sample as it ran: its lines as the text shows them and as the run printed them, normalised. */
export interface SampleRun {
  /** The command as the text gives it. */
  command: string;
  /** The text's output, line by line (trailing spaces dropped). */
  shown: string[];
  /** What the run printed on stdout, line by line, normalised to the text's directory, home and ids. */
  printed: string[];
  /** Its exit status (null for a sample run in the background). */
  status: number | null;
  /** What it printed on stderr, normalised as `printed` is (one string). */
  stderr: string;
}

/**
 * Every ```sh block of a text, in order, each with the ```text (or ```json) block that follows it
 * at once as its output ("" where none does): what `runSamplesInOrder` takes, once a chapter has
 * kept the blocks a reader runs offline.
 */
export function shellBlocks(markdown: string): { command: string; output: string }[] {
  return [...markdown.matchAll(/^```sh\n([\s\S]*?)^```\n(?:\n```(?:text|json)\n([\s\S]*?)^```$)?/gm)].map(
    ([, command, output]) => ({ command: command.trimEnd(), output: output ?? "" }),
  );
}

/** The UUIDs a session id is shown as. */
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/**
 * Run every sample in order and return each one's lines, shown and printed.
 * Contract: the copy and the home are removed before it returns, and whatever still runs in the
 * copy or in the background is killed; a setup that fails throws, with its stderr. The keys and
 * the harness's variables of this process are not passed on (the samples run offline, as on a
 * fresh machine).
 */
export function runSamplesInOrder(options: SamplesInOrder): SampleRun[] {
  const { sampleDir, repoRoot, projectSlug } = options;
  const dir = mkdtempSync(sampleDir.slice(0, -"XXXXXX".length)); // the same length as sampleDir
  const home = mkdtempSync(join(tmpdir(), "samples-home-"));
  const logs = mkdtempSync(join(tmpdir(), "samples-background-"));
  const leftRunning: number[] = []; // the process groups of samples run in the background
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
    const slug = projectSlug ?? ((path: string) => path.replaceAll("/", "-"));
    const here = join(home, "projects", slug(dir));
    const shownHere = `~/.harness/projects/${slug(sampleDir)}`;
    const normalised = (s: string) => {
      let out = s.replaceAll(here, shownHere).replaceAll(home, "~/.harness");
      for (const [id, shown] of ids) out = out.replaceAll(id, shown).replaceAll(id.slice(0, 8), shown.slice(0, 8));
      return out;
    };
    // a command that names a session by the text's id (or its first characters) names the real one
    const realIds = (command: string) =>
      command.replace(/\b[0-9a-f]{4,}(?:-[0-9a-f-]*)?\b/g, (word) => {
        for (const [id, shown] of ids) if (shown.startsWith(word)) return id.slice(0, word.length);
        return word;
      });
    return options.samples.map(({ command, output, stderr, background }) => {
      const script = realIds(command)
        .replaceAll(shownHere, here)
        .replaceAll("~/.harness", home)
        .replaceAll(sampleDir, dir)
        .replace(/\bpnpm ([\w:-]+)/g, (words, name: string) => scripts[name] ?? words);
      const how = {
        cwd: repoRoot,
        encoding: "utf8",
        env: { ...env, NO_COLOR: "1", HARNESS_HOME: home, ...options.env },
      } as const;
      const ran = background
        ? inBackground(
            script,
            output,
            join(logs, String(leftRunning.length)),
            dir,
            how,
            (printed) => lines(normalised(printed)).join("\n"),
            leftRunning,
          )
        : spawnSync("sh", ["-c", script], how);
      // the i-th session id a run prints is the i-th its text shows
      const shownIds = [...new Set(`${output}${stderr ?? ""}`.match(UUID) ?? [])];
      [...new Set(`${ran.stdout}${ran.stderr}`.match(UUID) ?? [])].forEach((id, i) => {
        if (!ids.has(id) && shownIds[i] !== undefined) ids.set(id, shownIds[i]);
      });
      return {
        command,
        shown: lines(output),
        printed: lines(normalised(ran.stdout)),
        status: ran.status,
        stderr: normalised(ran.stderr).replaceAll(dir, sampleDir),
      };
    });
  } finally {
    for (const pid of [...leftRunning, ...runningIn(dir)]) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone already
      }
    }
    for (const made of [dir, home, logs]) rmSync(made, { recursive: true, force: true });
  }
}

/**
 * Start `script` in the background, in a process group of its own, its output to files at `log`,
 * and wait (at most a minute) until what it printed, as `shown` makes it, starts with `output` and
 * a command it started runs in `dir`; what it has printed by then, its status null. Its group goes
 * on `groups` (as a negative pid, for `process.kill`).
 */
function inBackground(
  script: string,
  output: string,
  log: string,
  dir: string,
  options: { cwd: string; env: NodeJS.ProcessEnv },
  shown: (printed: string) => string,
  groups: number[],
): { stdout: string; stderr: string; status: null } {
  const [out, err] = [openSync(`${log}.out`, "w"), openSync(`${log}.err`, "w")];
  const child = spawn("sh", ["-c", script], { ...options, detached: true, stdio: ["ignore", out, err] });
  for (const fd of [out, err]) closeSync(fd);
  child.unref();
  if (child.pid !== undefined) groups.push(-child.pid);
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const ready = () => shown(readFileSync(`${log}.out`, "utf8")).startsWith(output) && runningIn(dir).length > 0;
  for (let waited = 0; waited < 60_000 && !ready(); waited += 50) {
    Atomics.wait(pause, 0, 0, 50);
  }
  return { stdout: readFileSync(`${log}.out`, "utf8"), stderr: readFileSync(`${log}.err`, "utf8"), status: null };
}

/** The processes whose working directory is `dir` or below it (none where there is no /proc). */
function runningIn(dir: string): number[] {
  if (!existsSync("/proc")) return [];
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        const cwd = readlinkSync(`/proc/${pid}/cwd`);
        return cwd === dir || cwd.startsWith(`${dir}/`);
      } catch {
        return false; // gone, or not ours
      }
    })
    .map(Number);
}
