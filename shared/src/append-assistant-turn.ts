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
  if (last?.role === "assistant") {
    // a prefill may be a plain string: it becomes the first text block of the merged message
    const text = typeof last.content === "string" ? last.content : "";
    const blocks = Array.isArray(last.content) ? last.content : text ? [{ type: "text" as const, text }] : [];
    last.content = [...blocks, ...turn.historyContent];
    return;
  }
  messages.push({ role: "assistant", content: [...turn.historyContent] });
}
