/**
 * A real trace for the tests: s04's loop run on the scripted model in a fresh directory, wired as
 * main.ts wires it with `--trace` (a TraceWriter, a TraceRecorder listening to the loop's events,
 * the run ended on the recorder when it throws), one run per prompt on one history. The trace is
 * written into a directory of its own, outside the one the tools run in, as traceDir keeps them.
 * Every directory made here is removed after the test.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type Anthropic from "@anthropic-ai/sdk";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { type AbortableStopReason, sendStreamed } from "@harness/s03-streaming";
import { ScriptedModel, type ScriptStep } from "@harness/scripted-model";
import { type AgentLoopResult, appendUserText, type Emit } from "@harness/shared";
import { cleanUpAfter } from "@harness/testkit";
import { type AgentLoopOptions, agentLoop } from "../src/agent-loop.ts";
import { fanOut } from "../src/fan-out.ts";
import { type TracedEvent, TraceRecorder } from "../src/trace-recorder.ts";
import { TraceWriter, traceDir } from "../src/trace-writer.ts";
import { type LoadedTrace, readTrace } from "../src/viewer/read-trace.ts";

/** A fresh directory under the system's temp directory, removed after the test. */
export function tempDir(prefix = "s04-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanUpAfter(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A trace file and the listener that records into it, as `openTrace` makes them. */
export interface TestTrace {
  writer: TraceWriter;
  recorder: TraceRecorder;
}

/** Trace `id` in `dir` (default: a fresh directory of its own), redacting `secrets`. */
export function testTrace(
  id = "test-trace",
  dir = join(tempDir("s04-traces-"), "traces"),
  secrets: string[] = [],
): TestTrace {
  const writer = new TraceWriter(id, dir, secrets);
  return { writer, recorder: new TraceRecorder(writer) };
}

/** How a traced run is set up: the loop's options, and a listener told each event before the recorder. */
export type TracedRunOptions = Omit<AgentLoopOptions, "emit"> & { listen?: Emit<TracedEvent> };

/**
 * One run of s04's loop as main.ts runs it with `--trace`: each turn streamed from `client`, the
 * events to `listen` (where main.ts has the view) and to the recorder, and the run ended on the
 * recorder when it throws (main.ts's `afterRun` with no result).
 */
export async function tracedRun(
  client: Anthropic,
  messages: MessageParam[],
  { listen, ...options }: TracedRunOptions,
  trace: TestTrace,
): Promise<AgentLoopResult<AbortableStopReason>> {
  const emit = fanOut<TracedEvent>(listen, trace.recorder.record);
  try {
    return await agentLoop(sendStreamed(client), messages, { ...options, emit });
  } catch (error) {
    trace.recorder.endRun();
    throw error;
  }
}

/** What a scripted run leaves behind. */
export interface ScriptedTrace {
  trace: LoadedTrace;
  writer: TraceWriter;
  model: ScriptedModel;
  messages: MessageParam[];
  results: AgentLoopResult<AbortableStopReason>[];
  /** The directory the tools ran in. */
  cwd: string;
}

/** Run `prompts` one after another on `script`, traced as `traceId`, in a temp dir holding `files`. */
export async function scriptedTrace(
  script: ScriptStep[],
  {
    prompts = ["Read notes.txt"],
    files = { "notes.txt": "alpha\nbeta\n" },
    traceId = "test-trace",
    options = {},
    home,
  }: {
    prompts?: string[];
    files?: Record<string, string>;
    traceId?: string;
    options?: Partial<TracedRunOptions>;
    /** Write where traceDir puts the project's traces with this HARNESS_HOME (default: a temp dir of its own). */
    home?: string;
  } = {},
): Promise<ScriptedTrace> {
  const cwd = tempDir("s04-trace-");
  for (const [name, content] of Object.entries(files)) writeFileSync(join(cwd, name), content);
  const model = new ScriptedModel({ script });
  const trace = home ? testTrace(traceId, traceDir(cwd, { HARNESS_HOME: home })) : testTrace(traceId);
  const messages: MessageParam[] = [];
  const results: AgentLoopResult<AbortableStopReason>[] = [];
  for (const prompt of prompts) {
    appendUserText(messages, prompt);
    results.push(await tracedRun(model.client(), messages, { model: "test-model", cwd, ...options }, trace));
  }
  return { trace: readTrace(trace.writer.path), writer: trace.writer, model, messages, results, cwd };
}
