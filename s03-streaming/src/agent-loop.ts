/** s03: s02's loop, plus each turn streamed through a `send` seam, and Ctrl-C that keeps the history valid. */
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { ALL_TOOLS, notRun, runToolCalls, type ToolMap, toApiTool, toolMap } from "@harness/s02-tool-dispatch";
import {
  type AgentLoopResult,
  AgentTurn,
  appendAssistantTurn,
  DEFAULT_MAX_TOKENS,
  DEFAULT_MAX_TURNS,
  type Emit,
  type LoopEvent,
  runTally,
  stopReasonFor,
  toResultBlock,
} from "@harness/shared";
import type { AbortableStopReason, SendTurn, StreamEvent } from "./index.ts";

/** How one run of the loop is set up. */
export interface AgentLoopOptions {
  /** Model id sent with every request. */
  model: string;
  /** Directory the tools work in. */
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
  /** Told what happens, as it happens (the terminal view listens); the loop works the same without it. */
  emit?: Emit<LoopEvent | StreamEvent>;
  /** Aborting it stops the request, the stream or the running tools; the loop returns `aborted`. */
  signal?: AbortSignal;
}

/**
 * Run the loop on `messages` (which end with the user's prompt) until the model answers, a turn
 * is cut short, or the turn budget is spent. The history is extended in place.
 * Contract: on every return, each tool_use in `messages` has its tool_result. An API error
 * (after the SDK's retries) is thrown, with the history left as it was before that call.
 */
export async function agentLoop(
  send: SendTurn,
  messages: MessageParam[],
  options: AgentLoopOptions,
): Promise<AgentLoopResult<AbortableStopReason>> {
  const tools = options.tools ?? toolMap(ALL_TOOLS);
  const maxTurns = options.maxTurns ?? DEFAULT_MAX_TURNS;
  const system = options.system ?? `You are a coding agent working in ${options.cwd}. Use the tools. Be brief.`;
  const emit = options.emit ?? (() => {});
  const tally = runTally(emit); // usage, tool calls, the last turn: what the result is made of
  const signal = options.signal ?? new AbortController().signal;

  for (let turns = 1; ; turns++) {
    if (signal.aborted) return tally.end("aborted", turns - 1);
    const request = {
      model: options.model,
      max_tokens: options.maxTokens ?? DEFAULT_MAX_TOKENS,
      system,
      tools: [...tools.values()].map(toApiTool),
      messages,
    };
    emit({ type: "model_call", turnNumber: turns, request });
    const response = await send(request, signal, emit);
    if (!response) return tally.end("aborted", turns); // the half-streamed turn is dropped
    const turn = AgentTurn.fromResponse(response);
    tally.turn(turn);
    appendAssistantTurn(messages, turn);
    emit({ type: "turn", turn, response });

    const stop = stopReasonFor(turn);
    if (stop) {
      // a cut or refused turn runs no tool, but each tool_use still needs its tool_result
      if (turn.toolCalls.length > 0) {
        messages.push({ role: "user", content: turn.toolCalls.map((call) => toResultBlock(call, notRun(turn))) });
      }
      return tally.end(stop, turns);
    }

    if (turn.toolCalls.length > 0) {
      const context = { cwd: options.cwd, signal, bashTimeoutMs: options.bashTimeoutMs }; // reads at once, the rest one by one
      const outputs = await runToolCalls(tools, turn.toolCalls, context, emit);
      tally.ran(outputs.length);
      // every call answered, in tool_use order, all in ONE user message
      messages.push({ role: "user", content: turn.toolCalls.map((call, i) => toResultBlock(call, outputs[i])) });
    }
    if (signal.aborted) return tally.end("aborted", turns);
    // no tool calls and no stop: pause_turn, so the history goes back as it is
    if (turns >= maxTurns) return tally.end("max_turns", turns);
  }
}
