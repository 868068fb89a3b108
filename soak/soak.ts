/**
 * The soak: `pnpm test:soak`. Ten thousand scripted model calls through the chapters' loops (s01 to
 * s09), most through the traced loops (s04 to s09), in runs of a few turns. s05's calls go through the
 * permission check (the user answers each question yes, no or always, at random); s06's through a
 * no-op PostToolUse hook now and then, a real process each time; s07's to s09's write a transcript,
 * one per run; s08's and s09's keep the history inside a small window; s09's speak a wire format
 * picked at random. Each run is some random real tool turns
 * (bash, read_file, glob, grep in a temp directory; now and then a `sleep 5` under a 0.2 s
 * timeout), then a seeded random case of the fault matrix, then a next prompt on the same history.
 *
 * It checks what must hold however long a harness runs: every run ends as the matrix says (an
 * error is allowed where it says so, thrown, never a crash), every history stays valid, no
 * sentinel tool call runs, every trace reads back record for record, every transcript reads back as
 * a valid history (the repair on load added, as a resume adds it), no bash process group
 * outlives its call, and memory stays flat after a warm-up. It prints the figures, and exits 1
 * when one of these fails.
 *
 * Environment: SOAK_ITERATIONS (default 10000), SOAK_SEED (default 1), SOAK_KEEP=1 keeps the
 * temp directory (traces included; a failed soak always keeps it).
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { agentLoop as s01Loop } from "@harness/s01-agent-loop";
import { ALL_TOOLS, agentLoop as s02Loop, toApiTool, toolMap } from "@harness/s02-tool-dispatch";
import { type SendTurn, agentLoop as s03Loop, sendStreamed } from "@harness/s03-streaming";
import {
  fanOut,
  readTrace,
  agentLoop as s04Loop,
  sentRequests,
  TraceRecorder,
  TraceWriter,
} from "@harness/s04-tracing";
import {
  defaultPermissionSettings,
  type PermissionAnswer,
  type PermissionSettings,
  permissionGate,
  agentLoop as s05Loop,
} from "@harness/s05-permissions";
import { type HookCommand, hookGate, loopHooks, agentLoop as s06Loop } from "@harness/s06-hooks";
import {
  historyOf,
  interruptedResults,
  readTranscript,
  agentLoop as s07Loop,
  TRANSCRIPT_VERSION,
  TranscriptWriter,
} from "@harness/s07-sessions";
import { type ContextEvent, ContextWindow, agentLoop as s08Loop, writeBoundary } from "@harness/s08-compaction";
import {
  type ProviderAdapter,
  agentLoop as s09Loop,
  scriptedAdapter,
  WIRE_FORMATS,
  type WireFormat,
} from "@harness/s09-providers";
import {
  FAULT_CASES,
  type FaultCase,
  type FaultMatrixLoop,
  type FaultOutcome,
  faultCaseOn,
  type LoopKind,
  reply,
  runFaultCase,
  type ScriptedBlock,
  type ScriptedModel,
  type ScriptStep,
  text,
  toolUse,
} from "@harness/scripted-model";
import { type Emit, historyProblems, type LoopEvent } from "@harness/shared";

const TARGET = Number(process.env.SOAK_ITERATIONS ?? 10_000);
const SEED = Number(process.env.SOAK_SEED ?? 1);
/** Iterations before the memory baseline is taken: caches, JIT and pools settle first. */
const WARMUP = Math.min(1000, Math.floor(TARGET / 10));
/** Growth of RSS from the end of the warm-up to the end that fails the soak. */
const RSS_GROWTH_LIMIT = 64 * 1024 * 1024;
/** Runs one trace file holds, as one REPL session would. */
const RUNS_PER_TRACE = 20;
const MB = 1024 * 1024;

type Chapter = "s01" | "s02" | "s03" | "s04" | "s05" | "s06" | "s07" | "s08" | "s09";

/** A seeded generator (mulberry32): the same seed gives the same soak. */
function seeded(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    chance: (p: number) => next() < p,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)],
  };
}
const rng = seeded(SEED);

// the working directory the tools see, the traces, and the file every bash call adds its pid to
const root = mkdtempSync(join(tmpdir(), "harness-soak-"));
const cwd = join(root, "work");
const traceDir = join(root, "traces");
const sessionsDir = join(root, "sessions"); // s07's transcripts, one per run
const pidsFile = join(root, "bash-pids");
mkdirSync(join(cwd, "src"), { recursive: true });
writeFileSync(join(cwd, "notes.txt"), "alpha\nbeta\ngamma\n");
writeFileSync(join(cwd, "README.md"), "# Soak\n\nA directory for the soak's tools.\n");
writeFileSync(join(cwd, "src", "app.ts"), "// TODO: handle errors\nexport const answer = 42;\n");
writeFileSync(join(cwd, "src", "util.ts"), "export function twice(n: number) {\n  return 2 * n; // FIXME\n}\n");
writeFileSync(pidsFile, "");

const tally = (map: Map<string, number>, key: string, n = 1) => map.set(key, (map.get(key) ?? 0) + n);
const figures = {
  iterations: 0,
  runs: 0,
  runsByChapter: new Map<string, number>(),
  formats: new Map<string, number>(),
  faults: new Map<string, number>(),
  ends: new Map<string, number>(),
  errors: new Map<string, number>(),
  toolCalls: new Map<string, number>(),
  answers: new Map<string, number>(),
  bashTimeouts: 0,
  historiesChecked: 0,
};
const failures: string[] = [];
const fail = (what: string) => {
  if (failures.length < 20) failures.push(what);
  else if (failures.length === 20) failures.push("(more failures not listed)");
};
let crashes = 0;
process.on("uncaughtException", (error) => {
  crashes++;
  fail(`uncaught exception: ${error.stack ?? error}`);
});
process.on("unhandledRejection", (error) => {
  crashes++;
  fail(`unhandled rejection: ${error instanceof Error ? error.stack : error}`);
});

/** One trace file and its recorder: the runs and iterations written to it, to compare with what reads back. */
interface TraceSession {
  writer: TraceWriter;
  recorder: TraceRecorder;
  runs: number;
  iterations: number;
}
const sessions: TraceSession[] = [];
function traceSession(): TraceSession {
  const current = sessions.at(-1);
  if (current && current.runs < RUNS_PER_TRACE) return current;
  const writer = new TraceWriter(`soak-${SEED}-${sessions.length}`, traceDir, []);
  const session = { writer, recorder: new TraceRecorder(writer), runs: 0, iterations: 0 };
  sessions.push(session);
  return session;
}

/** Counts each tool call run, by tool, and the bash calls killed at their timeout. */
/** The Anthropic client the matrix makes for s01 to s08 (s09's is an adapter). */
type Client = Parameters<typeof s01Loop>[0];

const countTools = (event: { type: string }): void => {
  const heard = event as LoopEvent;
  if (heard.type !== "tool_result") return;
  tally(figures.toolCalls, heard.call.name);
  if (heard.call.name === "bash" && /\[timed out after/.test(heard.result.content)) figures.bashTimeouts++;
};

/**
 * The loop a chapter runs, as the fault matrix calls it, built as its main.ts builds it: s03 on
 * stream each turn (s09 through the wire format's adapter); s04 on record a trace (a recorder per
 * trace file); s05 on put each call through the permission gate, the user answering at random;
 * s06 on wrap it in the hooks; s07 on write a transcript (one per run); s08 and s09 keep the
 * history inside a small window.
 */
function loopFor(chapter: Chapter, bashTimeoutMs: number): FaultMatrixLoop<unknown> {
  const base = { model: "soak-model", maxTurns: 12, bashTimeoutMs };
  let run: TranscriptWriter | undefined; // s07's transcript of this run
  if (chapter === "s01") {
    return (client, messages, cwd) => s01Loop(client as Client, messages, { ...base, cwd, emit: countTools });
  }
  if (chapter === "s02") {
    return (client, messages, cwd) => s02Loop(client as Client, messages, { ...base, cwd, emit: countTools });
  }
  const sendOf = (client: unknown): SendTurn =>
    chapter === "s09" ? (client as ProviderAdapter).streamTurn : sendStreamed(client as Client);
  if (chapter === "s03") {
    return (client, messages, cwd) => s03Loop(sendOf(client), messages, { ...base, cwd, emit: countTools });
  }
  return (client, messages, cwd) => {
    const send = sendOf(client);
    const session = traceSession();
    session.runs++; // every run ends with one record: its result, or the error that ended it
    const countTurns = (event: { type: string }) => {
      if (event.type === "turn") session.iterations++;
    };
    const traced = fanOut(session.recorder.record, countTools, countTurns);
    const options = { ...base, cwd };
    const recorded = <R>(running: Promise<R>): Promise<R> =>
      running.catch((error: unknown) => {
        session.recorder.endRun(); // as main.ts does after a run that threw: its error record was its last
        throw error;
      });
    if (chapter === "s04") return recorded(s04Loop(send, messages, { ...options, emit: traced }));
    // each run asks anew: an "always" holds for the settings object it was given, this run's
    const settings: PermissionSettings = defaultPermissionSettings();
    const mode = settings.defaultMode;
    const ask = async (): Promise<PermissionAnswer> => {
      const answer = rng.pick(["yes", "yes", "yes", "no", "always"] as const);
      tally(figures.answers, answer);
      return answer;
    };
    const gate = permissionGate({ settings, mode, ask });
    if (chapter === "s05") return recorded(s05Loop(send, messages, { ...options, emit: traced, runCall: gate }));
    const hooks = rng.chance(0.2) ? [noopHook] : [];
    const hookSession = { sessionId: `soak-${SEED}-${figures.runs}`, cwd };
    const runCall = hookGate({ hooks, session: hookSession, runProjectHooks: false, settings, mode, gate, ask });
    const atPrompt = loopHooks({ hooks, session: hookSession, runProjectHooks: false, notice: () => {} });
    const hooked = { ...options, runCall, hooks: atPrompt };
    if (chapter === "s06") return recorded(s06Loop(send, messages, { ...hooked, emit: traced }));
    run ??= newTranscript(cwd); // one per run: its first prompt, then the runner's next one
    const transcript = run;
    // the transcript listens; a compaction is a boundary in it, as s08's main.ts writes it
    const boundary = (event: { type: string }) => {
      const heard = event as ContextEvent;
      if (heard.type === "context" && heard.change.kind === "compacted") writeBoundary(transcript, heard.messages);
    };
    const emit: Emit<{ type: string }> = fanOut(traced, transcript.record, boundary);
    if (chapter === "s07")
      return recorded(s07Loop(send, messages, { ...hooked, emit })).finally(() => transcript.close());
    // s08 and s09 in a window small enough that long runs are cleared and summarised
    const tools = toolMap(ALL_TOOLS);
    const window = new ContextWindow({
      send,
      tooLong: chapter === "s09" ? (client as ProviderAdapter).promptTooLong : undefined,
      model: base.model,
      contextWindow: SOAK_WINDOW,
      tools: [...tools.values()].map(toApiTool),
      emit,
    });
    const windowed = { ...hooked, tools, emit: fanOut(emit, window.observe), window };
    const running =
      chapter === "s08" ? s08Loop(window.send, messages, windowed) : s09Loop(window.send, messages, windowed);
    return recorded(running).finally(() => transcript.close());
  };
}

/** The context window s08's and s09's runs keep inside (tokens): a few turns of tool output fill it. */
const SOAK_WINDOW = 6000;

/** The transcripts s07's runs wrote, read back at the end. */
const transcripts: string[] = [];
function newTranscript(cwd: string): TranscriptWriter {
  const id = crypto.randomUUID();
  const header = { type: "session" as const, version: TRANSCRIPT_VERSION, id, cwd, created: new Date().toISOString() };
  transcripts.push(join(sessionsDir, `${id}.jsonl`));
  return new TranscriptWriter(join(sessionsDir, `${id}.jsonl`), header, { model: "soak-model", secrets: [] });
}

/** A PostToolUse hook that does nothing: a real process per tool call, its result ignored. */
const noopHook: HookCommand = {
  event: "PostToolUse",
  matcher: "",
  command: "true",
  timeoutMs: 10_000,
  source: "local",
  file: ".harness/settings.local.json",
};

let callNumber = 0;
/** A random real tool call. */
function toolCall(chapter: Chapter, sleepy: boolean): ScriptedBlock {
  const n = ++callNumber;
  const bash = (command: string) => toolUse("bash", { command: `echo $$ >> '${pidsFile}'; ${command}` });
  if (sleepy) return bash("sleep 5 & sleep 5");
  const kind = chapter === "s01" ? "bash" : rng.pick(["bash", "bash", "read_file", "glob", "grep"]);
  let call: ScriptedBlock;
  if (kind === "bash") call = bash(rng.chance(0.7) ? `echo soak-${n}` : "true");
  else if (kind === "read_file") {
    call = toolUse("read_file", { path: rng.pick(["notes.txt", "README.md", "src/app.ts", "missing.txt"]) });
  } else if (kind === "glob") call = toolUse("glob", { pattern: rng.pick(["**/*.ts", "*.md", "src/*", "*.none"]) });
  else call = toolUse("grep", { pattern: rng.pick(["TODO|FIXME", "alpha", "export", "(unclosed"]) });
  return call;
}

/**
 * A turn that asks for one to three tools, sometimes thinking first, sometimes with a stop reason
 * no one knows. Thinking only on the Messages API (another format's reasoning comes back in its own
 * shape); no unknown stop reason on the Responses API (it has none: the reply is incomplete).
 */
function toolTurn(chapter: Chapter, sleepy: boolean, format: WireFormat = "anthropic"): ScriptStep {
  const blocks: ScriptedBlock[] = [];
  if (format === "anthropic" && rng.chance(0.1))
    blocks.push({ type: "thinking", thinking: "Which tool next?", signature: `sig-${callNumber}` });
  if (rng.chance(0.6)) blocks.push(text(`Step ${callNumber}: looking around.`));
  const calls = 1 + rng.int(3);
  for (let i = 0; i < calls; i++) blocks.push(toolCall(chapter, sleepy && i === 0));
  const novel = format !== "openai-responses" && rng.chance(0.05);
  return reply(blocks, novel ? { stopReason: "novel_reason" } : {});
}

const noFault = FAULT_CASES[0];
const faults = FAULT_CASES.slice(1);

/** One run: a few tool turns, a case of the matrix, a next prompt; every check on its outcome. */
async function soakRun(): Promise<void> {
  const chapter: Chapter = rng.pick([
    "s01",
    "s02",
    "s03",
    "s04",
    "s04",
    "s04",
    "s05",
    "s05",
    "s06",
    "s07",
    "s08",
    "s09",
  ]);
  // s09 speaks a wire format picked at random; the matrix says where a format meets a fault differently
  const format: WireFormat = chapter === "s09" ? rng.pick(WIRE_FORMATS) : "anthropic";
  const picked: FaultCase = rng.chance(0.3) ? noFault : rng.pick(faults);
  const fault = faultCaseOn(picked, format);
  const sleepy = rng.chance(0.02);
  const before = Array.from({ length: rng.int(4) }, (_, i) => toolTurn(chapter, sleepy && i === 0, format));
  if (sleepy && before.length === 0) before.push(toolTurn(chapter, true, format));
  const kind: LoopKind = chapter === "s01" || chapter === "s02" ? "nonStreaming" : "streaming";

  const connect = (model: ScriptedModel, maxRetries: number) =>
    chapter === "s09" ? scriptedAdapter(format, model, { maxRetries, retryDelayMs: 1 }) : model.client({ maxRetries });
  const loop = loopFor(chapter, sleepy ? 200 : 10_000);
  const outcome = await runFaultCase<unknown>(fault, loop, { cwd, before, connect });
  const name = `${chapter}${chapter === "s09" ? ` (${format})` : ""} · ${fault.name}`;
  if (chapter === "s09") tally(figures.formats, format);
  figures.runs++;
  figures.iterations += outcome.requests + 1; // the next prompt is one request more
  figures.historiesChecked += 2;
  tally(figures.runsByChapter, chapter);
  if (picked !== noFault) tally(figures.faults, fault.name);
  tally(figures.ends, outcome.end.kind === "stopped" ? outcome.end.stopReason : "error");
  if (outcome.end.kind === "threw") tally(figures.errors, outcome.end.errorName);
  check(name, outcome, fault, kind, before.length);
}

function check(name: string, outcome: FaultOutcome, fault: FaultCase, kind: LoopKind, turnsBefore: number): void {
  const expected = fault.expected[kind];
  if (JSON.stringify(outcome.end) !== JSON.stringify(expected.end)) {
    fail(
      `${name}: ended ${JSON.stringify(outcome.end)} (${outcome.errorMessage}), not ${JSON.stringify(expected.end)}`,
    );
  }
  if (outcome.requests !== turnsBefore + expected.requests) {
    fail(`${name}: ${outcome.requests} requests, not ${turnsBefore + expected.requests}`);
  }
  if (outcome.historyProblems.length > 0) fail(`${name}: invalid history: ${outcome.historyProblems.join("; ")}`);
  if (outcome.historyAsBeforeFailedCall === false) fail(`${name}: the history kept part of the failed call`);
  if (outcome.nextPromptProblem) fail(`${name}: ${outcome.nextPromptProblem}`);
  if (outcome.sentinelRan) fail(`${name}: the sentinel tool call ran`);
}

/** Collect garbage (when node was started with --expose-gc), then read the memory figures. */
function memory(): { rss: number; heapUsed: number } {
  globalThis.gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  return { rss, heapUsed };
}

/** The process groups among `pgids` that still have a live (not zombie) process, from /proc. */
function liveGroups(pgids: Set<number>): number[] {
  const alive = new Set<number>();
  for (const name of readdirSync("/proc").filter((n) => /^\d+$/.test(n))) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, "utf8");
    } catch {
      continue; // it ended while we looked
    }
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (state !== "Z" && state !== "X" && pgids.has(Number(pgrp))) alive.add(Number(pgrp));
  }
  return [...alive];
}

/** Read every trace back: records, torn lines, each run ending in a result or an error, valid histories. */
function checkTraces() {
  let records = 0;
  let tornLines = 0;
  let bytes = 0;
  let unreadable = 0;
  for (const session of sessions) {
    const trace = readTrace(session.writer.path);
    bytes += statSync(session.writer.path).size;
    records += trace.records.length;
    tornLines += trace.skippedLines;
    const problems: string[] = [];
    if (trace.skippedLines > 0) problems.push(`${trace.skippedLines} torn lines`);
    const expected = session.iterations + session.runs;
    if (trace.records.length !== expected) problems.push(`${trace.records.length} records, not ${expected}`);
    const runs = new Map<number, string[]>();
    for (const record of trace.records) runs.set(record.run, [...(runs.get(record.run) ?? []), record.type]);
    if (runs.size !== session.runs) problems.push(`${runs.size} runs, not ${session.runs}`);
    for (const [run, types] of runs) {
      const last = types.at(-1);
      if (last !== "result" && last !== "error") problems.push(`run ${run} ends with ${last}`);
    }
    let rebuilt = 0;
    for (const { record, request } of sentRequests(trace)) {
      rebuilt++;
      if (historyProblems(request.messages).length > 0) {
        problems.push(`run ${record.run} turn ${record.turn} recorded an invalid history`);
      }
    }
    const carrying = trace.records.filter((r) => r.type !== "result").length;
    if (rebuilt !== carrying) problems.push(`${rebuilt} requests rebuilt, not ${carrying}`);
    if (problems.length > 0) {
      unreadable++;
      fail(`trace ${session.writer.path}: ${problems.slice(0, 3).join("; ")}`);
    }
  }
  return { files: sessions.length, records, tornLines, bytes, unreadable };
}

/** Read every transcript back as a resume reads it: whole lines, and a valid history once repaired. */
function checkTranscripts() {
  let records = 0;
  let invalid = 0;
  for (const path of transcripts) {
    let problems: string[];
    try {
      const transcript = readTranscript(path);
      records += transcript.records.length;
      const history = historyOf(transcript.records);
      const repair = interruptedResults(history);
      problems = [
        ...(transcript.torn ? ["a torn line"] : []),
        ...historyProblems(repair ? [...history, repair] : history),
      ];
    } catch (error) {
      problems = [(error as Error).message];
    }
    if (problems.length > 0) {
      invalid++;
      fail(`transcript ${path}: ${problems.slice(0, 3).join("; ")}`);
    }
  }
  return { files: transcripts.length, records, invalid };
}

const mb = (bytes: number) => `${(bytes / MB).toFixed(1)} MB`;
const list = (map: Map<string, number>) =>
  [...map]
    .sort((a, b) => b[1] - a[1])
    .map(([key, n]) => `    ${String(n).padStart(6)}  ${key}`)
    .join("\n") || "    (none)";

const started = performance.now();
const atStart = memory();
let afterWarmup: { rss: number; heapUsed: number } | undefined;
let nextProgress = 1000;
console.log(`soak: ${TARGET} iterations, seed ${SEED}, in ${root}`);
while (figures.iterations < TARGET) {
  await soakRun();
  if (!afterWarmup && figures.iterations >= WARMUP) afterWarmup = memory();
  if (figures.iterations >= nextProgress) {
    const seconds = ((performance.now() - started) / 1000).toFixed(0);
    console.log(
      `  ${figures.iterations} iterations, ${figures.runs} runs, ${seconds} s, rss ${mb(process.memoryUsage().rss)}`,
    );
    nextProgress += 1000;
  }
}
const atEnd = memory();
const durationS = (performance.now() - started) / 1000;
const warm = afterWarmup ?? atStart;
const traces = checkTraces();
const transcriptsRead = checkTranscripts();
const pgids = new Set(readFileSync(pidsFile, "utf8").split("\n").filter(Boolean).map(Number));
const leaked = liveGroups(pgids);
if (leaked.length > 0) fail(`bash process groups still alive: ${leaked.slice(0, 10).join(", ")}`);
const growth = atEnd.rss - warm.rss;
if (growth > RSS_GROWTH_LIMIT) fail(`RSS grew ${mb(growth)} after the warm-up (limit ${mb(RSS_GROWTH_LIMIT)})`);

console.log(`
iterations (model calls): ${figures.iterations} in ${figures.runs} runs, ${durationS.toFixed(1)} s
runs by chapter:
${list(figures.runsByChapter)}
s09's runs by wire format:
${list(figures.formats)}
faults injected, by matrix case:
${list(figures.faults)}
runs ended:
${list(figures.ends)}
errors, by kind:
${list(figures.errors)}
tool calls run:
${list(figures.toolCalls)}
    bash calls killed at their timeout: ${figures.bashTimeouts}
permission questions answered (s05 to s07):
${list(figures.answers)}
histories checked: ${figures.historiesChecked} (each run's, and after its next prompt)
memory:
    rss        start ${mb(atStart.rss)}, after warm-up (${WARMUP} iterations) ${mb(warm.rss)}, end ${mb(atEnd.rss)} (${growth >= 0 ? "+" : ""}${mb(growth)} since warm-up; limit +${mb(RSS_GROWTH_LIMIT)})
    heap used  start ${mb(atStart.heapUsed)}, after warm-up ${mb(warm.heapUsed)}, end ${mb(atEnd.heapUsed)}${globalThis.gc ? "" : " (no --expose-gc: figures without a GC first)"}
traces: ${traces.files} files, ${traces.records} records, ${mb(traces.bytes)}, ${traces.tornLines} torn lines, ${traces.unreadable} not as written
transcripts (s07): ${transcriptsRead.files} files, ${transcriptsRead.records} records, ${transcriptsRead.invalid} not a valid history
processes: ${pgids.size} bash process groups started, ${leaked.length} still alive
crashes (uncaught): ${crashes}
${failures.length === 0 ? "PASS" : `FAIL\n${failures.map((f) => `  - ${f}`).join("\n")}`}`);

// a failed soak keeps its directory: the traces and transcripts are what you will want to read
if (process.env.SOAK_KEEP || failures.length > 0) console.log(`kept: ${root}`);
else rmSync(root, { recursive: true, force: true });
process.exit(failures.length === 0 ? 0 : 1);
