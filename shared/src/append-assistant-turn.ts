/**
 * Add the model's turn to a history without breaking it.
 */
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import type { AgentTurn } from "./agent-turn.ts";

/**
 * Append the turn as an assistant message.
 * Contract: after `pause_turn` the history already ends with the assistant's unfinished message
 * (it is sent back as it is, for the model to continue); the continuation is merged into that
 * message, so roles keep alternating.
 */
export function appendAssistantTurn(messages: MessageParam[], turn: AgentTurn): void {
  const last = messages.at(-1);
  if (last?.role === "assistant" && Array.isArray(last.content)) {
    last.content = [...last.content, ...turn.historyContent];
    return;
  }
  messages.push({ role: "assistant", content: [...turn.historyContent] });
}
