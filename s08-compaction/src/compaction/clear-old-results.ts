/**
 * The cheap half of keeping a history small: a tool result the model read turns ago is rarely
 * needed word for word again, and it is most of what a coding session sends. Its content is
 * replaced by a short marker; its tool_use and its tool_result stay, with their ids, so every
 * pair stays whole and the model still sees what it did.
 */
import type { MessageParam, ToolResultBlockParam } from "@anthropic-ai/sdk/resources/messages";
import { estimateTokens } from "../measure-context.ts";

/** What a cleared result reads. */
export const CLEARED_RESULT = "[old tool result cleared to save context]";

/** The latest turns whose results are never cleared: the model is still working with them. */
export const KEEP_RECENT_TURNS = 3;

/** What `clearOldResults` did. */
export interface Cleared {
  /** Results whose content was replaced. */
  results: number;
  /** The tokens that freed, estimated. */
  freedTokens: number;
}

/**
 * Replace the content of every tool result older than the last `keepTurns` assistant turns that
 * called tools, in place.
 * Contract: no block is added or removed and no id changes, so a valid history stays valid; a
 * result already shorter than the marker, or already cleared, is left as it is.
 */
export function clearOldResults(messages: MessageParam[], keepTurns = KEEP_RECENT_TURNS): Cleared {
  const callingTurns = messages.flatMap((m, i) =>
    m.role === "assistant" && Array.isArray(m.content) && m.content.some((b) => b.type === "tool_use") ? [i] : [],
  );
  // results live in the message after their turn: clear up to the first turn kept (keeping none: all)
  const end =
    callingTurns.length <= keepTurns
      ? 0
      : keepTurns === 0
        ? messages.length
        : callingTurns[callingTurns.length - keepTurns];
  let results = 0;
  let freedTokens = 0;
  for (const message of messages.slice(0, end)) {
    if (message.role !== "user" || !Array.isArray(message.content)) continue;
    message.content = message.content.map((block) => {
      if (block.type !== "tool_result" || !worthClearing(block)) return block;
      results++;
      freedTokens += estimateTokens(block.content) - estimateTokens(CLEARED_RESULT);
      return { ...block, content: CLEARED_RESULT };
    });
  }
  return { results, freedTokens };
}

function worthClearing(block: ToolResultBlockParam): boolean {
  return block.content !== CLEARED_RESULT && estimateTokens(block.content ?? "") > estimateTokens(CLEARED_RESULT);
}
