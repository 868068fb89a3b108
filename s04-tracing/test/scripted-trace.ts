/**
 * A real trace for the readers' tests: s04's loop run on the scripted model in a fresh directory,
 * one run per prompt on one history, every iteration written by a TraceWriter.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import type { AgentStopReason } from "@harness/s03-streaming";
import { type AgentLoopResult, appendUserText, ScriptedModel, type ScriptStep } from "@harness/shared";
import { type AgentLoopOptions, agentLoop } from "../src/agent-loop.ts";
import { type LoadedTrace, readTrace } from "../src/read-trace.ts";
import { TraceWriter } from "../src/trace-writer.ts";

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
  }: {
    prompts?: string[];
    files?: Record<string, string>;
    traceId?: string;
    options?: Partial<AgentLoopOptions>;
  } = {},
): Promise<ScriptedTrace> {
  const cwd = mkdtempSync(join(tmpdir(), "s03-trace-"));
  for (const [name, content] of Object.entries(files)) writeFileSync(join(cwd, name), content);
  const model = new ScriptedModel({ script });
  const writer = new TraceWriter(traceId, join(cwd, ".traces"), []);
  const messages: MessageParam[] = [];
  const results: AgentLoopResult<AgentStopReason>[] = [];
  for (const prompt of prompts) {
    appendUserText(messages, prompt);
    results.push(await agentLoop(model.client(), messages, { model: "test-model", cwd, trace: writer, ...options }));
  }
  return { trace: readTrace(writer.path), writer, model, messages, results, cwd };
}
