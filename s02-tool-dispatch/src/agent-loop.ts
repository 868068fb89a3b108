/**
 * s02: the same loop, with a tool map, concurrent reads, a streamed response and Ctrl-C.
 *
 * The loop keeps s01's shape: call the model, read the turn, stop or run the tools, go round.
 * What changed is around it: the tools are a map of objects (dispatch.ts), a turn whose calls
 * only read runs them at once (run-tool-calls.ts), the response is streamed and a tool call is
 * parsed only when its block is complete (stream-turn.ts), and a signal can stop it all while
 * every tool_use still gets its result.
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { MessageParam, ToolResultBlockParam } from "@anthropic-ai/sdk/resources/messages";
import {
  type AgentLoopResult,
  AgentTurn,
  addUsage,
  appendAssistantTurn,
  type LoopStopReason,
  stopReasonFor,
  type ToolCall,
  type ToolResult,
} from "@harness/shared";
import { codedError, type ToolMap, toolMap } from "./dispatch.ts";
import { REPEAT_LIMIT, RepeatGuard } from "./repeat-guard.ts";
import { runToolCalls } from "./run-tool-calls.ts";
import { type StreamObserver, streamTurn } from "./stream-turn.ts";
import { toApiTool } from "./tool.ts";
import { ALL_TOOLS } from "./tools/index.ts";

/**
 * s01's results, plus `aborted` (the user pressed Ctrl-C) and `repeated_tool_call` (the same
 * call in `REPEAT_LIMIT` turns in a row: the model is stuck).
 */
export type StopReason = LoopStopReason | "aborted" | "repeated_tool_call";

/** How one run of the loop is set up. */
export interface AgentLoopOptions {
  model: string;
  /** Directory the tools work in; file tools refuse paths outside it. */
  cwd: string;
  /** The tools offered (default: all six of this chapter). */
  tools?: ToolMap;
  /** Model calls allowed before the loop stops with `max_turns` (default 8). */
  maxTurns?: number;
  /** Output tokens allowed per model call (default 8192). */
  maxTokens?: number;
  /** Milliseconds before a bash command is killed (default 120 000). */
  bashTimeoutMs?: number;
  system?: string;
  /** Aborting it stops the stream or the running tools; the loop returns `aborted`. */
  signal?: AbortSignal;
  observer?: LoopObserver;
}

/** What the loop tells its observer: the stream's progress, then the calls and their results. */
export interface LoopObserver extends StreamObserver {
  /** A model call is about to be made (the first is turn 1). */
  modelCall?(turnNumber: number): void;
  /** The turn's response is complete and appended to the history. */
  turn?(turn: AgentTurn): void;
  /** The turn's tool calls are about to run, all of them, in tool_use order. */
  toolCalls?(calls: readonly ToolCall[]): void;
  /** One call's result, as it lands (calls that run at once land in any order). */
  toolResult?(call: ToolCall, result: ToolResult): void;
}

/** The default turn budget. */
export const DEFAULT_MAX_TURNS = 8;
/** The default cap on output tokens per model call. */
export const DEFAULT_MAX_TOKENS = 8192;

/** The result of a tool call from a turn that was cut short or refused: it was not run. */
export function notRun(turn: AgentTurn): ToolResult {
  return codedError("not_run", `the turn stopped with "${turn.providerStopReason}", so no tool from it runs.`);
}

/** The result of a call that would repeat itself once more: it was not run. */
export function repeated(): ToolResult {
  return codedError("repeated_tool_call", `the same call in ${REPEAT_LIMIT} turns in a row; the loop stops here.`);
}

/** A tool result as the API wants it: answering its call's id. */
export function resultBlock(call: ToolCall, output: ToolResult): ToolResultBlockParam {
  return { type: "tool_result", tool_use_id: call.id, content: output.content, is_error: output.isError };
}

/**
 * Run the loop on `messages` (which end with the user's prompt). The history is extended in place.
 * Contract: on every return, `aborted` included, each tool_use in `messages` has exactly one
 * tool_result. A stream that fails is thrown, with the history as it was before that call.
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
  let usage = { inputTokens: 0, outputTokens: 0 };
  let toolCalls = 0;
  let last: AgentTurn | null = null;
  const repeatGuard = new RepeatGuard();
  const result = (stopReason: StopReason, turns: number): AgentLoopResult<StopReason> => ({
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
    const response = await streamTurn(client, request, signal, observer);
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
      const outputs = await runToolCalls(tools, turn.toolCalls, context, observer.toolResult);
      toolCalls += outputs.length;
      // one result per call, in tool_use order, in ONE user message, even when interrupted
      messages.push({ role: "user", content: turn.toolCalls.map((call, i) => resultBlock(call, outputs[i])) });
      if (signal.aborted) return result("aborted", turns);
    }
    // no tool calls and no stop: pause_turn, so the history goes back as it is
    if (turns >= maxTurns) return result("max_turns", turns);
  }
}
