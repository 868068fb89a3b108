/**
 * A real trace for the readers' tests: s04's loop run on the scripted model in a fresh directory,
 * one run per prompt on one history, every iteration written by a TraceWriter into a directory of
 * its own (outside the one the tools run in, as traceDir keeps them).
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import type { AgentStopReason } from "@harness/s03-streaming";
import { ScriptedModel, type ScriptStep } from "@harness/scripted-model";
import { type AgentLoopResult, appendUserText } from "@harness/shared";
import { type AgentLoopOptions, agentLoop } from "../src/agent-loop.ts";
import { type LoadedTrace, readTrace } from "../src/viewer/read-trace.ts";
import { TraceWriter, traceDir } from "../src/trace-writer.ts";

/** What a scripted run leaves behind. */
export interface ScriptedTrace {
  trace: LoadedTrace;
  writer: TraceWriter;
  model: ScriptedModel;
  messages: MessageParam[];
  results: AgentLoopResult<AgentStopReason>[];
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
    options?: Partial<AgentLoopOptions>;
    /** Write where traceDir puts the project's traces with this HARNESS_HOME (default: a temp dir of its own). */
    home?: string;
  } = {},
): Promise<ScriptedTrace> {
  const cwd = mkdtempSync(join(tmpdir(), "s03-trace-"));
  for (const [name, content] of Object.entries(files)) writeFileSync(join(cwd, name), content);
  const model = new ScriptedModel({ script });
  const dir = home ? traceDir(cwd, { HARNESS_HOME: home }) : join(mkdtempSync(join(tmpdir(), "s03-traces-")), "traces");
  const writer = new TraceWriter(traceId, dir, []);
  const messages: MessageParam[] = [];
  const results: AgentLoopResult<AgentStopReason>[] = [];
  for (const prompt of prompts) {
    appendUserText(messages, prompt);
    results.push(await agentLoop(model.client(), messages, { model: "test-model", cwd, trace: writer, ...options }));
  }
  return { trace: readTrace(writer.path), writer, model, messages, results, cwd };
}
