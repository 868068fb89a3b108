/**
 * A run as a person starts it: a harness spawned as a child process against the scripted model,
 * served over real HTTP on 127.0.0.1 from this process. Two figures per harness, read off the
 * requests as the server receives them:
 *
 *   spawn → first request   from spawning the process to the server receiving its first model call
 *                           of the conversation (everything a harness loads before it can ask)
 *   per turn                from that first model call to the last, divided by the tool turns in
 *                           between (each turn: read the answer, run one bash call, send again)
 *
 * and for each, the child's own CPU time at those moments (`/proc/<pid>/stat`, Linux only), which
 * the machine's load moves less than the wall time. The harnesses: s01 and s09 (`node --import tsx
 * sNN/src/main.ts`, what `pnpm sNN` runs, without pnpm's own start), and beside them, when they are
 * on PATH, Claude Code (`claude -p`, `npm i -g @anthropic-ai/claude-code`) and pi (`pi -p`,
 * `npm i -g @mariozechner/pi-coding-agent`), each pointed at the same server. Nothing is installed
 * here, and no test runs this. Runs are interleaved, in an order rotated each repetition, after
 * warm-up rounds that are not counted; a ratio is taken between runs of the same repetition.
 *
 * One more run each of s01 and s09, untimed, counts the modules they load before their first
 * request (`module-census.mjs`): what "a run loads what it uses" is about.
 */
import { type ChildProcess, spawn } from "node:child_process";
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { MessageCreateParams } from "@anthropic-ai/sdk/resources/messages";
import { ScriptedModel, startScriptedServer } from "@harness/scripted-model";
import { benchBrain, firstPrompt, toolTurnsPrompt } from "../bench-brain.ts";
import { atMost, type Figure, formatValue, type Section, summarize } from "../section.ts";

/** How the scenario runs. */
export interface FirstRequestOptions {
  /** Tool turns in the conversation (model calls are one more). */
  turns: number;
  warmup: number;
  reps: number;
  repoRoot: string;
}

/** The targets of issue 23. */
export const SPAWN_TARGET = 1.3;
export const TURN_TARGET = 2;

/** One harness, and how to start it on a prompt against the server at `url`. */
interface Harness {
  name: string;
  /** Ours are held to the targets; a peer is measured beside them. */
  role: "ours" | "peer";
  command: string;
  args(prompt: string, work: string): string[];
  /** Where the process starts. */
  cwd(work: string): string;
  /** Its environment (a fresh HOME each run: no one's settings, sessions or trust). */
  env(url: string, home: string): NodeJS.ProcessEnv;
  /** Files its HOME needs before it starts. */
  prepare?(home: string, url: string): void;
}

/** What one run did, read off the requests it sent. */
interface Run {
  /** Milliseconds from spawn to the conversation's first model call, and the child's CPU milliseconds then. */
  firstMs: number;
  firstCpuMs: number;
  /** Milliseconds and CPU milliseconds per tool turn, from the first model call to the last. */
  turnMs: number;
  turnCpuMs: number;
}

const KEY = "bench-api-key-0123456789abcdef";

/** Run the spawn and per-turn comparison. */
export async function firstRequest(o: FirstRequestOptions): Promise<Section> {
  const harnesses = [...ours(o.repoRoot, o.turns), ...peers()];
  const missing = peerSearch().filter((p) => !p.found);
  const root = mkdtempSync(join(tmpdir(), "bench-first-request-"));
  const work = join(root, "work");
  mkdirSync(work);
  const prompt = toolTurnsPrompt(o.turns);
  const server = await startCountingServer();
  const runs = new Map<string, Run[]>(harnesses.map((h) => [h.name, []]));
  const problems: string[] = [];
  const notes: string[] = [];
  const failed = new Map<string, string>();
  try {
    for (let rep = -o.warmup; rep < o.reps; rep++) {
      const shift = ((rep % harnesses.length) + harnesses.length) % harnesses.length;
      for (let k = 0; k < harnesses.length; k++) {
        const harness = harnesses[(k + shift) % harnesses.length];
        if (failed.has(harness.name)) continue;
        const home = mkdtempSync(join(root, "home-"));
        const run = await runOnce(harness, server, prompt, o.turns, work, home).catch((error: unknown) => {
          const why = error instanceof Error ? error.message : String(error);
          if (harness.role === "ours") problems.push(`${harness.name}: ${why}`);
          failed.set(harness.name, why);
          return undefined;
        });
        rmSync(home, { recursive: true, force: true });
        if (run && rep >= 0) runs.get(harness.name)?.push(run);
      }
    }
    for (const [name, why] of failed) {
      if (harnesses.find((h) => h.name === name)?.role === "peer") notes.push(`${name}: not measured (${why}).`);
    }
    for (const peer of missing) notes.push(`${peer.name}: not measured, not on PATH (${peer.install}).`);
    notes.push(...(await census(o.repoRoot, server, work, root)));
  } finally {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }

  const s01 = runs.get("s01") ?? [];
  const figures: Figure[] = [];
  // each harness against s01, run for run within a repetition
  for (const harness of harnesses.filter((h) => h.name !== "s01")) {
    const mine = runs.get(harness.name) ?? [];
    const paired = (pick: (run: Run) => number) =>
      summarize(mine.map((run, rep) => (s01[rep] ? pick(run) / pick(s01[rep]) : Number.NaN)));
    const median = (list: Run[], pick: (run: Run) => number) => summarize(list.map(pick)).median;
    const spawnSpread = paired((r) => r.firstMs);
    const turnSpread = paired((r) => r.turnMs);
    const isS09 = harness.name === "s09";
    figures.push({
      label: `${harness.name} / s01: spawn → first request`,
      spread: spawnSpread,
      unit: "x",
      detail:
        `${formatValue(
          median(mine, (r) => r.firstMs),
          "ms",
        )} against ${formatValue(
          median(s01, (r) => r.firstMs),
          "ms",
        )}; ` +
        `CPU ${formatValue(
          median(mine, (r) => r.firstCpuMs),
          "ms",
        )} against ${formatValue(
          median(s01, (r) => r.firstCpuMs),
          "ms",
        )} ` +
        `(${formatValue(paired((r) => r.firstCpuMs).median, "x")})`,
      target: isS09 ? atMost(spawnSpread, SPAWN_TARGET, `≤ ${SPAWN_TARGET}x of s01's`) : undefined,
    });
    figures.push({
      label: `${harness.name} / s01: per turn`,
      spread: turnSpread,
      unit: "x",
      detail:
        `${formatValue(
          median(mine, (r) => r.turnMs),
          "ms",
        )}/turn against ${formatValue(
          median(s01, (r) => r.turnMs),
          "ms",
        )}; ` +
        `CPU ${formatValue(
          median(mine, (r) => r.turnCpuMs),
          "ms",
        )}/turn against ${formatValue(
          median(s01, (r) => r.turnCpuMs),
          "ms",
        )} ` +
        `(${formatValue(paired((r) => r.turnCpuMs).median, "x")})`,
      target: isS09 ? atMost(turnSpread, TURN_TARGET, `≤ ${TURN_TARGET}x of s01's`) : undefined,
    });
  }
  return {
    title: "Spawn to first request, and per turn: s01, s09 and their peers",
    about:
      `Each harness is spawned on "${prompt}" (${o.turns} turns of one bash call, \`echo k\`, then an answer: ` +
      `${o.turns + 1} model calls) against the scripted model over HTTP on 127.0.0.1, served from this process. ` +
      "Spawn → first request: from spawn to the server receiving the conversation's first model call. Per turn: " +
      "from that call to the last, over the turns between. Ratio = the harness's figure / s01's in the same " +
      `repetition; ${o.warmup} warm-up rounds, then ${o.reps} counted, each running every harness once in an order ` +
      "rotated each time. The detail gives medians of wall time and of the child's own CPU time (user + system, " +
      "from /proc; the bash commands it runs are not in it), with the CPU ratio in brackets.",
    figures,
    notes: [
      "s01 and s09 run as `node --import tsx sNN/src/main.ts --cwd DIR --max-turns N PROMPT` (what `pnpm sNN` runs) with " +
        "ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL set, so they take the API path; s09 with `--allow 'Bash(echo:*)'` " +
        "(s05's rule), so each call is decided and runs. Claude Code runs as `claude -p PROMPT --allowedTools " +
        "'Bash(echo:*)'` with its nonessential traffic and experimental betas off; pi as `pi -p --provider anthropic --model " +
        "claude-sonnet-4-5 --no-session PROMPT`, its Anthropic base URL set in a models.json. Each run gets a fresh HOME.",
      "The server answers at once, and its own work (parsing each request, larger for a harness that sends more " +
        "tools and a longer system prompt) is in the wall time of a turn but not in the child's CPU time.",
      ...notes,
    ],
    problems,
  };
}

/** The course's two harnesses, with a turn budget above what the conversation takes. */
function ours(repoRoot: string, turns: number): Harness[] {
  const chapter = (name: string, folder: string, extra: string[]): Harness => ({
    name,
    role: "ours",
    command: process.execPath,
    args: (prompt, work) => {
      const budget = ["--max-turns", String(turns + 5)];
      return ["--import", "tsx", `${folder}/src/main.ts`, "--cwd", work, ...budget, ...extra, prompt];
    },
    cwd: () => repoRoot,
    env: (url, home) => ({
      PATH: process.env.PATH,
      HOME: home,
      HARNESS_HOME: join(home, ".harness"),
      ANTHROPIC_API_KEY: KEY,
      ANTHROPIC_BASE_URL: url,
    }),
  });
  return [chapter("s01", "s01-agent-loop", []), chapter("s09", "s09-providers", ["--allow", "Bash(echo:*)"])];
}

/** The peers, as found on PATH. */
function peerSearch(): { name: string; install: string; found: boolean; harness: Harness }[] {
  const quiet = {
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    DISABLE_AUTOUPDATER: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    // its experimental betas (thinking cleared by context management) are more than the scripted model speaks
    CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS: "1",
  };
  const claude: Harness = {
    name: "Claude Code",
    role: "peer",
    command: "claude",
    args: (prompt) => ["-p", prompt, "--allowedTools", "Bash(echo:*)"],
    cwd: (work) => work,
    env: (url, home) => ({
      PATH: process.env.PATH,
      HOME: home,
      ANTHROPIC_API_KEY: KEY,
      ANTHROPIC_BASE_URL: url,
      ...quiet,
    }),
  };
  const pi: Harness = {
    name: "pi",
    role: "peer",
    command: "pi",
    args: (prompt) => ["-p", "--provider", "anthropic", "--model", "claude-sonnet-4-5", "--no-session", prompt],
    cwd: (work) => work,
    env: (_url, home) => ({ PATH: process.env.PATH, HOME: home, ANTHROPIC_API_KEY: KEY, PI_OFFLINE: "1" }),
    prepare(home, url) {
      const dir = join(home, ".pi", "agent");
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, "models.json"), JSON.stringify({ providers: { anthropic: { baseUrl: url } } }));
    },
  };
  return [
    { name: claude.name, install: "npm i -g @anthropic-ai/claude-code", found: onPath("claude"), harness: claude },
    { name: pi.name, install: "npm i -g @mariozechner/pi-coding-agent", found: onPath("pi"), harness: pi },
  ];
}

function peers(): Harness[] {
  return peerSearch().flatMap((p) => (p.found ? [p.harness] : []));
}

function onPath(command: string): boolean {
  return (process.env.PATH ?? "").split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, command), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** A request as the server received it: when, the sender's CPU time then, and whether it is a turn of the conversation. */
interface Arrival {
  ms: number;
  cpuMs: number;
  conversation: boolean;
}

/** The scripted model over HTTP, noting every request's arrival for the run in progress. */
interface CountingServer {
  url: string;
  /** Start noting for a run of `child`, whose conversation opens with `prompt`. */
  watch(child: ChildProcess, prompt: string): Arrival[];
  close(): Promise<void>;
}

async function startCountingServer(): Promise<CountingServer> {
  const model = new ScriptedModel({ brain: benchBrain });
  const handle = model.handle.bind(model);
  let watched: { pid: number; prompt: string; arrivals: Arrival[] } | undefined;
  model.handle = async (request, signal) => {
    const ms = performance.now();
    const cpuMs = watched ? cpuOf(watched.pid) : Number.NaN;
    const readable = await readableRequest(request, signal);
    if (watched && readable.body) {
      const conversation = firstPrompt(readable.body.messages ?? [])
        .split("\n")
        .includes(watched.prompt);
      watched.arrivals.push({ ms, cpuMs, conversation });
    }
    model.requests.length = 0; // nothing here reads them back
    return handle(readable.request, signal);
  };
  const server = await startScriptedServer(model);
  return {
    url: server.url,
    watch(child, prompt) {
      watched = { pid: child.pid ?? 0, prompt, arrivals: [] };
      return watched.arrivals;
    },
    close: () => server.close(),
  };
}

/**
 * A request the scripted model can read. Claude Code sends mid-conversation `system` messages (a
 * beta the scripted model does not speak): they are left out, and the messages around them joined.
 */
async function readableRequest(
  request: Request,
  signal?: AbortSignal,
): Promise<{ request: Request; body?: MessageCreateParams }> {
  if (request.method !== "POST") return { request };
  const text = await request.text();
  let body: MessageCreateParams & { messages: { role: string; content: unknown }[] };
  try {
    body = JSON.parse(text);
  } catch {
    return { request: new Request(request.url, { method: "POST", headers: request.headers, body: text, signal }) };
  }
  if (Array.isArray(body.messages) && body.messages.some((m) => m.role === "system")) {
    const joined: { role: string; content: unknown[] }[] = [];
    for (const message of body.messages) {
      if (message.role === "system") continue;
      const content = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
      const last = joined.at(-1);
      if (last?.role === message.role) last.content.push(...(content as unknown[]));
      else joined.push({ ...message, content: [...(content as unknown[])] });
    }
    body.messages = joined as typeof body.messages;
  }
  const rebuilt = new Request(request.url, {
    method: "POST",
    headers: request.headers,
    body: JSON.stringify(body),
    signal,
  });
  return { request: rebuilt, body };
}

/** A process's CPU time so far (user + system) in milliseconds, from /proc; NaN where there is none. */
function cpuOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return Number.NaN;
  }
}

/** Linux's clock ticks per second for /proc's times (USER_HZ: 100 on every common build). */
const CLOCK_TICKS = 100;

/** Spawn `harness` on `prompt` and read its run off the server. */
async function runOnce(
  harness: Harness,
  server: CountingServer,
  prompt: string,
  turns: number,
  work: string,
  home: string,
): Promise<Run> {
  harness.prepare?.(home, server.url);
  const started = performance.now();
  const child = spawn(harness.command, harness.args(prompt, work), {
    cwd: harness.cwd(work),
    env: harness.env(server.url, home),
    stdio: ["ignore", "pipe", "pipe"],
  });
  const arrivals = server.watch(child, prompt);
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk;
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk;
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), 180_000);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", resolve);
  }).finally(() => clearTimeout(timer));
  const calls = arrivals.filter((a) => a.conversation);
  const answer = `Done after ${turns} tool calls.`;
  if (code !== 0 || calls.length !== turns + 1 || !stdout.includes(answer)) {
    const said = `${stderr.trim().split("\n").at(-1) ?? ""}`.slice(0, 200);
    throw new Error(
      `exited ${code} after ${calls.length} model calls of the conversation (${turns + 1} expected)` +
        `${stdout.includes(answer) ? "" : `, without "${answer}"`}${said ? `: ${said}` : ""}`,
    );
  }
  const [first, last] = [calls[0], calls[calls.length - 1]];
  return {
    firstMs: first.ms - started,
    firstCpuMs: first.cpuMs,
    turnMs: (last.ms - first.ms) / turns,
    turnCpuMs: (last.cpuMs - first.cpuMs) / turns,
  };
}

/** The modules s01 and s09 load before their first request, counted by `module-census.mjs`. */
async function census(repoRoot: string, server: CountingServer, work: string, root: string): Promise<string[]> {
  const preload = fileURLToPath(new URL("../module-census.mjs", import.meta.url));
  const counts: string[] = [];
  for (const harness of ours(repoRoot, 1)) {
    const home = mkdtempSync(join(root, "census-"));
    const out = join(home, "modules.json");
    const child = spawn(process.execPath, ["--import", preload, ...harness.args("bench: 1 tool turns", work)], {
      cwd: harness.cwd(work),
      env: { ...harness.env(server.url, home), HARNESS_MODULE_CENSUS: out },
      stdio: "ignore",
    });
    server.watch(child, "bench: 1 tool turns");
    await new Promise((resolve) => child.on("close", resolve));
    if (!existsSync(out)) {
      counts.push(`${harness.name}: the module census wrote nothing`);
      continue;
    }
    const files: string[] = JSON.parse(readFileSync(out, "utf8"));
    counts.push(`${harness.name} ${files.length} (${byPackage(files, repoRoot)})`);
  }
  return [`Modules loaded before the first request: ${counts.join("; ")}.`];
}

/** The biggest groups of `files`: packages of node_modules, and the course's folders. */
function byPackage(files: string[], repoRoot: string): string {
  const groups = new Map<string, number>();
  for (const file of files) {
    const dependency = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)\//.exec(file)?.[1];
    const key = dependency ?? (file.startsWith(repoRoot) ? file.slice(repoRoot.length + 1).split("/")[0] : "other");
    groups.set(key, (groups.get(key) ?? 0) + 1);
  }
  return [...groups]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 6)
    .map(([name, n]) => `${name} ${n}`)
    .join(", ");
}
