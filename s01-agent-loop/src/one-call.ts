/**
 * Where this chapter starts: ONE model call with the bash tool, and no loop. The model may ask for
 * a command, but nothing runs it and nothing reads what it would print, so the "answer" is whatever
 * the model wrote before asking, and its `tool_use` is left without a `tool_result`.
 *
 * Not a harness, and the CLI does not use it: it is the "before" of the chapter text's diff.
 * `agentLoop` (agent-loop.ts) is this function with a loop around the call, a stop decision, the
 * tools run and answered, and a turn budget.
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import {
  type AgentLoopResult,
  AgentTurn,
  appendAssistantTurn,
  bashToolDefinition,
  DEFAULT_MAX_TOKENS,
} from "@harness/shared";
import type { AgentLoopOptions } from "./agent-loop.ts";

/**
 * Call the model once on `messages` and append its turn.
 * Contract: it always says `final_answer`, even when the model asked for a tool; that tool_use
 * stays unanswered, so the history is no longer one the API accepts.
 */
export async function oneCall(
  client: Anthropic,
  messages: MessageParam[],
  options: AgentLoopOptions,
): Promise<AgentLoopResult> {
  const system = options.system ?? `You are a coding agent working in ${options.cwd}. Use the tools. Be brief.`;
  const request = {
    model: options.model,
    max_tokens: options.maxTokens ?? DEFAULT_MAX_TOKENS,
    system,
    tools: [bashToolDefinition],
    messages,
  };
  const response = await client.messages.create(request);
  const turn = AgentTurn.fromResponse(response);
  appendAssistantTurn(messages, turn);
  return {
    stopReason: "final_answer",
    turns: 1,
    toolCalls: 0,
    finalText: turn.text,
    providerStopReason: turn.providerStopReason,
    usage: turn.usage,
  };
}
