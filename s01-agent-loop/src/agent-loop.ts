/**
 * s01: the agent loop.
 *
 * The model reads the conversation and either answers or asks for tools; the harness runs the
 * tools, sends the results back, and the model reads again. Tool blocks decide whether the loop
 * goes on, the provider's stop reason says why it stopped, and the harness keeps its own turn
 * budget. This file is the whole mechanism: types, the one tool, one turn, the loop.
 *
 * Left out until later chapters: several tools (s02), streaming (s02), Ctrl-C (s02), traces (s03).
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { MessageParam, ToolResultBlockParam } from "@anthropic-ai/sdk/resources/messages";
import {
  type AgentLoopResult,
  AgentTurn,
  addUsage,
  appendAssistantTurn,
  bashToolDefinition,
  type LoopStopReason,
  runBashTool,
  stopReasonFor,
  type ToolCall,
  type ToolResult,
  toolError,
} from "@harness/shared";

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

/** The default turn budget. */
export const DEFAULT_MAX_TURNS = 8;
/** The default cap on output tokens per model call. */
export const DEFAULT_MAX_TOKENS = 8192;

/** Run one tool call. The only tool is bash; anything else is an error result, never a throw. */
async function runTool(call: ToolCall, options: AgentLoopOptions): Promise<ToolResult> {
  if (call.inputError) return toolError(`Error: invalid arguments: ${call.inputError}`);
  if (call.name !== "bash") return toolError(`Error: unknown tool "${call.name}"; the only tool is bash.`);
  return runBashTool(call.input, { cwd: options.cwd, timeoutMs: options.bashTimeoutMs });
}

/** The result of a tool call from a turn that was cut short or refused: it was not run. */
function notRun(turn: AgentTurn): ToolResult {
  return toolError(`Error: not run; the turn stopped with "${turn.providerStopReason}", so no tool from it runs.`);
}

/** A tool result as the API wants it: answering its call's id. */
function resultBlock(call: ToolCall, output: ToolResult): ToolResultBlockParam {
  return { type: "tool_result", tool_use_id: call.id, content: output.content, is_error: output.isError };
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
  const system = options.system ?? `You are a coding agent. Use the bash tool to work in ${options.cwd}. Be brief.`;
  let usage = { inputTokens: 0, outputTokens: 0 };
  let toolCalls = 0;

  for (let turns = 1; ; turns++) {
    options.observer?.modelCall?.(turns);
    const response = await client.messages.create({
      model: options.model,
      max_tokens: options.maxTokens ?? DEFAULT_MAX_TOKENS,
      system,
      tools: [bashToolDefinition],
      messages,
    });
    const turn = AgentTurn.fromResponse(response);
    usage = addUsage(usage, turn.usage);
    appendAssistantTurn(messages, turn);
    options.observer?.turn?.(turn);

    const result = (stopReason: LoopStopReason): AgentLoopResult => ({
      stopReason,
      turns,
      toolCalls,
      finalText: turn.text,
      providerStopReason: turn.providerStopReason,
      usage,
    });
    const stop = stopReasonFor(turn);
    if (stop) {
      // a cut or refused turn runs no tool, but each tool_use still needs its tool_result
      if (turn.toolCalls.length > 0) {
        messages.push({ role: "user", content: turn.toolCalls.map((call) => resultBlock(call, notRun(turn))) });
      }
      return result(stop);
    }

    if (turn.toolCalls.length > 0) {
      // every call answered, in tool_use order, all in ONE user message
      const results: ToolResultBlockParam[] = [];
      for (const call of turn.toolCalls) {
        options.observer?.toolCall?.(call);
        const output = await runTool(call, options);
        toolCalls++;
        options.observer?.toolResult?.(call, output);
        results.push(resultBlock(call, output));
      }
      messages.push({ role: "user", content: results });
    }
    // no tool calls and no stop: pause_turn, so the history goes back as it is
    if (turns >= maxTurns) return result("max_turns");
  }
}
