/**
 * Where a history may be cut in two, the older part to be summarised and the newer part kept word
 * for word. Only at a turn boundary: before a model turn, or before a prompt. Never between a
 * tool_use and its tool_result, which must stay in consecutive messages, or the API refuses the
 * history.
 */
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { estimateTokens } from "../measure-context.ts";

/**
 * True when the history may be cut before `messages[i]`: an assistant message (a model turn), or a
 * user message that answers no tool call (a prompt); or the end.
 */
export function isTurnBoundary(messages: readonly MessageParam[], i: number): boolean {
  if (i === messages.length) return true;
  const message = messages[i];
  if (message.role === "assistant") return true;
  return typeof message.content === "string" || !message.content.some((b) => b.type === "tool_result");
}

/**
 * The index where the kept tail begins: the earliest turn boundary after the first message whose
 * tail is at most `tailTokens` (its messages' estimates added up). The tail may be empty
 * (`messages.length`) when even the last turn is larger, except for the work in flight: when the
 * history ends with tool results, the model turn that asked for them is always kept (summarised,
 * its results would be gone before the model read them, and it would ask for them again). The
 * head is never empty.
 */
export function findCut(messages: readonly MessageParam[], tailTokens: number): number {
  let tail = 0;
  let cut = messages.length;
  for (let i = messages.length - 1; i >= 1; i--) {
    tail += estimateTokens(messages[i]);
    if (tail > tailTokens) break;
    if (isTurnBoundary(messages, i)) cut = i;
  }
  return Math.min(cut, inFlight(messages));
}

/** Where the work in flight begins: the last model turn when tool results end the history; else the end. */
function inFlight(messages: readonly MessageParam[]): number {
  const last = messages.at(-1);
  const results =
    last?.role === "user" && typeof last.content !== "string" && last.content.some((b) => b.type === "tool_result");
  return results ? messages.length - 2 : messages.length;
}
