/**
 * s03: the same loop as s02, made observable. Give it a trace and every iteration is written to
 * disk before the loop moves on: the request as sent, the response, each tool call with its
 * result and duration, and timings. What the loop does is unchanged; only what it records is
 * new, and the recording itself lives in run-recorder.ts.
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import {
  ALL_TOOLS,
  DEFAULT_MAX_TOKENS,
  DEFAULT_MAX_TURNS,
  notRun,
  RepeatGuard,
  repeated,
  resultBlock,
  runToolCalls,
  type AgentLoopOptions as S02Options,
  type StopReason,
  streamTurn,
  toApiTool,
  toolMap,
} from "@harness/s02-tool-dispatch";
import { type AgentLoopResult, AgentTurn, addUsage, appendAssistantTurn, stopReasonFor } from "@harness/shared";
import { RunRecorder } from "./run-recorder.ts";
import { TraceWriter, traceDir } from "./trace-writer.ts";

export type { LoopObserver, StopReason } from "@harness/s02-tool-dispatch";
export { DEFAULT_MAX_TOKENS, DEFAULT_MAX_TURNS };

/** How one run of the loop is set up: s02's options, plus a trace. */
export interface AgentLoopOptions extends S02Options {
  /** Record into `<traceId>.jsonl` in the project's trace directory (`traceDir(cwd)`). */
  traceId?: string;
  /** Record with this writer instead (a REPL session shares one across its runs). */
  trace?: TraceWriter;
}

/**
 * Run the loop on `messages` (which end with the user's prompt), recording each iteration.
 * Contract: each record is on disk before the loop goes on; the last record of a run is its
 * result (or the error that ended it). Every tool_use gets its tool_result, as in s02.
 */
export async function agentLoop(
  client: Anthropic,
  messages: MessageParam[],
  options: AgentLoopOptions,
): Promise<AgentLoopResult<StopReason>> {
  const tools = options.tools ?? toolMap(ALL_TOOLS);
  const signal = options.signal ?? new AbortController().signal;
  const maxTurns = options.maxTurns ?? DEFAULT_MAX_TURNS;
  const system = options.system ?? `You are a coding agent working in ${options.cwd}. Use the tools. Be brief.`;
  const observer = options.observer ?? {};
  const trace =
    options.trace ?? (options.traceId ? new TraceWriter(options.traceId, traceDir(options.cwd)) : undefined);
  const recorder = new RunRecorder(trace);
  let usage = { inputTokens: 0, outputTokens: 0 };
  let toolCalls = 0;
  let last: AgentTurn | null = null;
  const repeatGuard = new RepeatGuard();
  const result = (stopReason: StopReason, turns: number): AgentLoopResult<StopReason> =>
    recorder.finish({
      stopReason,
      turns,
      toolCalls,
      finalText: last?.text ?? "",
      providerStopReason: last?.providerStopReason ?? null,
      usage,
    });

  for (let turns = 1; ; turns++) {
    if (signal.aborted) return result("aborted", turns - 1);
    observer.modelCall?.(turns);
    const request = {
      model: options.model,
      max_tokens: options.maxTokens ?? DEFAULT_MAX_TOKENS,
      system,
      tools: [...tools.values()].map(toApiTool),
      messages,
    };
    const iteration = recorder.iteration(turns, request);
    const response = await iteration.modelCall(streamTurn(client, request, signal, iteration.observe(observer)));
    if (!response) return result("aborted", turns); // the half-streamed turn is dropped
    const turn = AgentTurn.fromResponse(response);
    last = turn;
    usage = addUsage(usage, turn.usage);
    appendAssistantTurn(messages, turn);
    observer.turn?.(turn);

    const stop = stopReasonFor(turn);
    if (stop) {
      // a cut or refused turn runs no tool, but each tool_use still needs its tool_result
      if (turn.toolCalls.length > 0) {
        messages.push({ role: "user", content: turn.toolCalls.map((call) => resultBlock(call, notRun(turn))) });
      }
      return result(stop, turns);
    }

    if (repeatGuard.repeats(turn.toolCalls)) {
      messages.push({ role: "user", content: turn.toolCalls.map((call) => resultBlock(call, repeated())) });
      return result("repeated_tool_call", turns);
    }

    if (turn.toolCalls.length > 0) {
      observer.toolCalls?.(turn.toolCalls);
      const context = { cwd: options.cwd, signal, bashTimeoutMs: options.bashTimeoutMs };
      const onResult = iteration.toolFinished(observer.toolResult);
      const outputs = await runToolCalls(tools, turn.toolCalls, context, onResult, iteration.toolStarted);
      toolCalls += outputs.length;
      // one result per call, in tool_use order, in ONE user message, even when interrupted
      messages.push({ role: "user", content: turn.toolCalls.map((call, i) => resultBlock(call, outputs[i])) });
    }
    if (signal.aborted) return result("aborted", turns);
    // no tool calls and no stop: pause_turn, so the history goes back as it is
    if (turns >= maxTurns) return result("max_turns", turns);
  }
}
