/**
 * The repair a transcript needs after a hard stop. The loop writes the model's turn before it
 * runs the turn's tools, and their results after; a session killed in between (`kill -9`, a power
 * cut, a crash) ends with tool calls no result answers, a history the API refuses. Each such call
 * is answered with an error result saying what is known: no result was recorded, and whether the
 * call ran, or how far, is not known. A fork of a session whose tool is still running in another
 * process is repaired the same way: in the fork, that call never returns.
 */
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { codedError } from "@harness/s02-tool-dispatch";
import { toResultBlock } from "@harness/shared";

/** What the model reads for a call that was interrupted by the session stopping. */
export const INTERRUPTED = codedError(
  "interrupted",
  "no result was recorded for this call (the session stopped, or was forked, while it ran); whether it ran, or how far, is not known.",
);

/**
 * The user message that answers the tool calls of the history's last message, when it is the
 * model's and asks for tools; `undefined` when nothing is left unanswered.
 * Contract: added to the history, it leaves every tool_use answered, in tool_use order.
 */
export function interruptedResults(history: readonly MessageParam[]): MessageParam | undefined {
  const last = history.at(-1);
  if (last?.role !== "assistant" || typeof last.content === "string") return undefined;
  const calls = last.content.flatMap((block) =>
    block.type === "tool_use" ? [{ id: block.id, name: block.name, input: {} }] : [],
  );
  if (calls.length === 0) return undefined;
  return { role: "user", content: calls.map((call) => toResultBlock(call, INTERRUPTED)) };
}
