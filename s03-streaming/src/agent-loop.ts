/**
 * s03: the same loop, streamed and interruptible.
 *
 * The loop keeps s02's shape and its tools. What changed is how a turn arrives and how a run can
 * end: the response is streamed (stream-turn.ts), its text shown as it comes and each tool call
 * parsed once its block is complete, and a signal (Ctrl-C) reaches the request, the stream and
 * the running tools. An interrupted run returns `aborted`, with every tool_use answered.
 *
 * Left out until later chapters: traces (s04).
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { ALL_TOOLS, notRun, runToolCalls, type ToolMap, toApiTool, toolMap } from "@harness/s02-tool-dispatch";
import {
  type AgentLoopResult,
  AgentTurn,
  addUsage,
  appendAssistantTurn,
  DEFAULT_MAX_TOKENS,
  DEFAULT_MAX_TURNS,
  stopReasonFor,
  type ToolCall,
  type ToolResult,
  toResultBlock,
} from "@harness/shared";
import type { AgentStopReason } from "./agent-stop-reason.ts";
import { type StreamObserver, streamTurn } from "./stream-turn.ts";

/** How one run of the loop is set up. */
export interface AgentLoopOptions {
  /** Model id sent with every request. */
  model: string;
  /** Directory the tools work in; file tools refuse paths outside it. */
  cwd: string;
  /** The tools offered (default: `ALL_TOOLS`, the six of s02). */
  tools?: ToolMap;
  /** Model calls allowed before the loop stops with `max_turns` (default 8). */
  maxTurns?: number;
  /** Output tokens allowed per model call (default 8192). */
  maxTokens?: number;
  /** Milliseconds before a bash command is killed (default 120 000). */
  bashTimeoutMs?: number;
  /** The system prompt (default: a short one naming the working directory). */
  system?: string;
  /** Aborting it stops the request, the stream or the running tools; the loop returns `aborted`. */
  signal?: AbortSignal;
  /** Told about each step, for display; the loop works the same without it. */
  observer?: LoopObserver;
}

/** What the loop tells its observer (the CLI prints these): the stream's progress, then the rest. */
export interface LoopObserver extends StreamObserver {
  /** Before each model call; `turnNumber` counts from 1. */
  modelCall?(turnNumber: number): void;
  /** After each model call, with the turn as read from the response. */
  turn?(turn: AgentTurn): void;
  /** Before a tool call runs. */
  toolCall?(call: ToolCall): void;
  /** After a tool call ran, with the result the model will read. */
  toolResult?(call: ToolCall, result: ToolResult): void;
}

/**
 * Run the loop on `messages` (which end with the user's prompt) until the model answers, a turn
 * is cut short, the turn budget is spent, or the signal aborts it. The history is extended in place.
 * Contract: on every return, `aborted` included, each tool_use in `messages` has its tool_result.
 * A stream that fails is thrown, with the history left as it was before that call.
 */
export async function agentLoop(
  client: Anthropic,
  messages: MessageParam[],
  options: AgentLoopOptions,
): Promise<AgentLoopResult<AgentStopReason>> {
  const tools = options.tools ?? toolMap(ALL_TOOLS);
  const signal = options.signal ?? new AbortController().signal;
  const maxTurns = options.maxTurns ?? DEFAULT_MAX_TURNS;
  const system = options.system ?? `You are a coding agent working in ${options.cwd}. Use the tools. Be brief.`;
  const observer = options.observer ?? {};
  let usage = { inputTokens: 0, outputTokens: 0 };
  let toolCalls = 0;
  let last: AgentTurn | null = null;
  const result = (stopReason: AgentStopReason, turns: number): AgentLoopResult<AgentStopReason> => ({
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
        messages.push({ role: "user", content: turn.toolCalls.map((call) => toResultBlock(call, notRun(turn))) });
      }
      return result(stop, turns);
    }

    if (turn.toolCalls.length > 0) {
      // reads at once, anything else one by one; the outputs come back in tool_use order
      const context = { cwd: options.cwd, signal, bashTimeoutMs: options.bashTimeoutMs };
      const outputs = await runToolCalls(tools, turn.toolCalls, context, observer);
      toolCalls += outputs.length;
      // every call answered, in tool_use order, all in ONE user message, even when interrupted
      messages.push({ role: "user", content: turn.toolCalls.map((call, i) => toResultBlock(call, outputs[i])) });
    }
    if (signal.aborted) return result("aborted", turns);
    // no tool calls and no stop: pause_turn, so the history goes back as it is
    if (turns >= maxTurns) return result("max_turns", turns);
  }
}
