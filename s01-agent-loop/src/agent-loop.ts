/**
 * s01: the agent loop.
 *
 * The model reads the conversation and either answers or asks for tools; the harness runs the
 * tools, sends the results back, and the model reads again. Tool blocks decide whether the loop
 * goes on, the provider's stop reason says why it stopped, and the harness keeps its own turn
 * budget. This file is the whole mechanism: the options, then the loop. The one tool is run by
 * run-tool.ts.
 *
 * Left out until later chapters: several tools (s02), streaming and Ctrl-C (s03), traces (s04).
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { MessageParam, ToolResultBlockParam } from "@anthropic-ai/sdk/resources/messages";
import {
  type AgentLoopResult,
  AgentTurn,
  addUsage,
  appendAssistantTurn,
  bashToolDefinition,
  DEFAULT_MAX_TOKENS,
  DEFAULT_MAX_TURNS,
  type LoopStopReason,
  stopReasonFor,
  type ToolCall,
  type ToolResult,
  toResultBlock,
} from "@harness/shared";
import { notRun, runTool } from "./run-tool.ts";

/** How one run of the loop is set up. */
export interface AgentLoopOptions {
  /** Model id sent with every request. */
  model: string;
  /** Directory the bash tool runs in. */
  cwd: string;
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
      tools: [bashToolDefinition],
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
      // every call answered, in tool_use order, all in ONE user message
      const results: ToolResultBlockParam[] = [];
      for (const call of turn.toolCalls) {
        observer.toolCall?.(call);
        const output = await runTool(call, options);
        toolCalls++;
        observer.toolResult?.(call, output);
        results.push(toResultBlock(call, output));
      }
      messages.push({ role: "user", content: results });
    }
    // no tool calls and no stop: pause_turn, so the history goes back as it is
    if (turns >= maxTurns) return result("max_turns", turns);
  }
}
