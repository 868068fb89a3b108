/**
 * s02: the same loop, with a dispatch map.
 *
 * The loop keeps s01's shape: call the model, read the turn, stop or run the tools, go round.
 * What changed is the tools: they are a map of objects (tool.ts, dispatch.ts) offered to the
 * model together, and a turn's calls go to runToolCalls (run-tool-calls.ts), which runs them at
 * once when they only read and returns one result per call, in tool_use order.
 *
 * Left out until later chapters: streaming and Ctrl-C (s03), traces (s04).
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import {
  type AgentLoopResult,
  AgentTurn,
  addUsage,
  appendAssistantTurn,
  DEFAULT_MAX_TOKENS,
  DEFAULT_MAX_TURNS,
  type LoopStopReason,
  stopReasonFor,
  type ToolCall,
  type ToolResult,
  toResultBlock,
} from "@harness/shared";
import { type ToolMap, toolMap } from "./dispatch.ts";
import { notRun, runToolCalls } from "./run-tool-calls.ts";
import { toApiTool } from "./tool.ts";
import { ALL_TOOLS } from "./tools/index.ts";

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
  /** Told about each step, for display; the loop works the same without it. */
  observer?: LoopObserver;
}

/** What the loop tells its observer (the CLI prints these). */
export interface LoopObserver {
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
 * is cut short, or the turn budget is spent. The history is extended in place.
 * Contract: on every return, each tool_use in `messages` has its tool_result. An API error
 * (after the SDK's retries) is thrown, with the history left as it was before that call.
 */
export async function agentLoop(
  client: Anthropic,
  messages: MessageParam[],
  options: AgentLoopOptions,
): Promise<AgentLoopResult> {
  const tools = options.tools ?? toolMap(ALL_TOOLS);
  const maxTurns = options.maxTurns ?? DEFAULT_MAX_TURNS;
  const system = options.system ?? `You are a coding agent working in ${options.cwd}. Use the tools. Be brief.`;
  const observer = options.observer ?? {};
  let usage = { inputTokens: 0, outputTokens: 0 };
  let toolCalls = 0;
  let last: AgentTurn | null = null;
  const result = (stopReason: LoopStopReason, turns: number): AgentLoopResult => ({
    stopReason,
    turns,
    toolCalls,
    finalText: last?.text ?? "",
    providerStopReason: last?.providerStopReason ?? null,
    usage,
  });

  for (let turns = 1; ; turns++) {
    observer.modelCall?.(turns);
    const request = {
      model: options.model,
      max_tokens: options.maxTokens ?? DEFAULT_MAX_TOKENS,
      system,
      tools: [...tools.values()].map(toApiTool),
      messages,
    };
    const response = await client.messages.create(request);
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
      const context = { cwd: options.cwd, bashTimeoutMs: options.bashTimeoutMs };
      const outputs = await runToolCalls(tools, turn.toolCalls, context, observer);
      toolCalls += outputs.length;
      // every call answered, in tool_use order, all in ONE user message
      messages.push({ role: "user", content: turn.toolCalls.map((call, i) => toResultBlock(call, outputs[i])) });
    }
    // no tool calls and no stop: pause_turn, so the history goes back as it is
    if (turns >= maxTurns) return result("max_turns", turns);
  }
}
