/**
 * s03: the same loop as s02, made observable. Give it a trace and every iteration is written to
 * disk before the loop moves on: the request as sent, the response, each tool call with its
 * result and duration, and timings. What the loop does is unchanged; only what it records is new.
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { MessageParam, ToolResultBlockParam } from "@anthropic-ai/sdk/resources/messages";
import {
  ALL_TOOLS,
  type LoopObserver,
  runToolCalls,
  type StopReason,
  streamTurn,
  type ToolMap,
  toApiTool,
  toolMap,
} from "@harness/s02-tool-dispatch";
import {
  type AgentLoopResult,
  AgentTurn,
  addUsage,
  appendAssistantTurn,
  stopReasonFor,
  type ToolCall,
  type ToolResult,
  toolError,
} from "@harness/shared";
import type { TracedToolCall } from "./trace-record.ts";
import type { TraceWriter } from "./trace-writer.ts";

export type { LoopObserver, StopReason };

/** How one run of the loop is set up: s02's options, plus a trace. */
export interface AgentLoopOptions {
  model: string;
  cwd: string;
  tools?: ToolMap;
  maxTurns?: number;
  maxTokens?: number;
  bashTimeoutMs?: number;
  system?: string;
  signal?: AbortSignal;
  observer?: LoopObserver;
  /** Where each iteration is recorded; without it the loop records nothing. */
  trace?: TraceWriter;
}

/** The default turn budget. */
export const DEFAULT_MAX_TURNS = 8;

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
  const trace = options.trace;
  const run = trace ? trace.run++ : 0;
  let usage = { inputTokens: 0, outputTokens: 0 };
  let toolCalls = 0;
  let last: AgentTurn | null = null;
  const finish = (stopReason: StopReason, turns: number): AgentLoopResult<StopReason> => {
    const result = {
      stopReason,
      turns,
      toolCalls,
      finalText: last?.text ?? "",
      providerStopReason: last?.providerStopReason ?? null,
      usage,
    };
    trace?.write({ type: "result", traceId: trace.traceId, run, at: new Date().toISOString(), result });
    return result;
  };

  for (let turns = 1; ; turns++) {
    if (signal.aborted) return finish("aborted", turns - 1);
    observer.modelCall?.(turns);
    const request = {
      model: options.model,
      max_tokens: options.maxTokens ?? 8192,
      system,
      tools: [...tools.values()].map(toApiTool),
      messages,
    };
    const sent = { ...request, messages: messages.map((m) => ({ ...m })) }; // as sent, before the turn is appended
    const startedAt = new Date();
    const t0 = performance.now();
    let ttftMs = -1;
    const timedObserver = {
      ...observer,
      start: () => {
        ttftMs = performance.now() - t0;
        observer.start?.();
      },
    };
    let response: Awaited<ReturnType<typeof streamTurn>>;
    try {
      response = await streamTurn(client, request, signal, timedObserver);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const at = new Date().toISOString();
      trace?.write({
        type: "error",
        traceId: trace.traceId,
        run,
        turn: turns,
        startedAt: startedAt.toISOString(),
        at,
        request: sent,
        message,
      });
      throw error;
    }
    const modelMs = performance.now() - t0;
    if (!response) return finish("aborted", turns); // the half-streamed turn is dropped
    const turn = AgentTurn.fromResponse(response);
    last = turn;
    usage = addUsage(usage, turn.usage);
    appendAssistantTurn(messages, turn);
    observer.turn?.(turn);

    const traced: TracedToolCall[] = [];
    const record = () =>
      trace?.write({
        type: "iteration",
        traceId: trace.traceId,
        run,
        turn: turns,
        startedAt: startedAt.toISOString(),
        request: sent,
        response: {
          id: response.id,
          model: response.model,
          content: response.content,
          stopReason: turn.providerStopReason,
          usage: turn.usage,
        },
        toolCalls: traced,
        timings: { ttftMs: Math.max(ttftMs, 0), modelMs, toolMs: toolSpan(traced) },
      });

    const stop = stopReasonFor(turn);
    if (stop) {
      // a cut or refused turn runs no tool, but each tool_use still needs its tool_result
      if (turn.toolCalls.length > 0) {
        messages.push({ role: "user", content: turn.toolCalls.map((call) => resultBlock(call, notRun(turn))) });
      }
      record();
      return finish(stop, turns);
    }

    if (turn.toolCalls.length > 0) {
      observer.toolCalls?.(turn.toolCalls);
      const context = { cwd: options.cwd, signal, bashTimeoutMs: options.bashTimeoutMs };
      const starts = new Map<string, number>();
      const outputs = await runToolCalls(
        tools,
        turn.toolCalls,
        context,
        (call, result) => {
          const start = starts.get(call.id) ?? performance.now();
          traced.push({
            id: call.id,
            name: call.name,
            input: call.input,
            result: result.content,
            isError: result.isError,
            startOffsetMs: start - t0,
            durationMs: performance.now() - start,
          });
          observer.toolResult?.(call, result);
        },
        (call) => starts.set(call.id, performance.now()),
      );
      toolCalls += outputs.length;
      // one result per call, in tool_use order, in ONE user message, even when interrupted
      messages.push({
        role: "user",
        content: turn.toolCalls.map((call, i) => ({
          type: "tool_result" as const,
          tool_use_id: call.id,
          content: outputs[i].content,
          is_error: outputs[i].isError,
        })),
      });
      traced.sort(
        (a, b) => turn.toolCalls.findIndex((c) => c.id === a.id) - turn.toolCalls.findIndex((c) => c.id === b.id),
      );
      record(); // on disk before the next model call
      if (signal.aborted) return finish("aborted", turns);
    } else {
      record();
    }
    if (turns >= maxTurns) return finish("max_turns", turns);
  }
}

/** The result of a tool call from a turn that was cut short or refused: it was not run. */
function notRun(turn: AgentTurn): ToolResult {
  return toolError(`Error: not run; the turn stopped with "${turn.providerStopReason}", so no tool from it runs.`);
}

/** A tool result as the API wants it: answering its call's id. */
function resultBlock(call: ToolCall, output: ToolResult): ToolResultBlockParam {
  return { type: "tool_result", tool_use_id: call.id, content: output.content, is_error: output.isError };
}

/** Milliseconds from the first tool call's start to the last one's end. */
function toolSpan(calls: TracedToolCall[]): number {
  if (calls.length === 0) return 0;
  const start = Math.min(...calls.map((c) => c.startOffsetMs));
  const end = Math.max(...calls.map((c) => c.startOffsetMs + c.durationMs));
  return end - start;
}
