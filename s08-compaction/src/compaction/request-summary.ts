/**
 * The expensive half: ask the model itself to summarise the older part of the history. The
 * request is that history as it is (long tool results clipped), the tools its tool calls name (the
 * API wants them defined) with `tool_choice: none` (a summary calls no tool), and the summary
 * prompt, whose fixed sections keep what the work needs: the task, the decisions, the files
 * touched, what is left.
 */
import type { MessageCreateParamsNonStreaming, MessageParam, Tool } from "@anthropic-ai/sdk/resources/messages";
import type { SendTurn } from "@harness/s03-streaming";
import { AgentTurn, appendUserText } from "@harness/shared";

/** The prompt a summary is asked with. */
export const SUMMARY_PROMPT = [
  "Summarise this conversation so that you can continue the work from the summary alone: the messages",
  "it covers will be gone. Use exactly these sections:",
  "## Task: what the user asked, in their words, and every fact they stated",
  "## Decisions: what was decided or found out, and why",
  "## Files touched: files read, written or edited, and commands run with what they returned",
  "## What is left: what remains to do for the latest request",
  "Keep names, paths, numbers and commands exact. Call no tool.",
].join("\n");

/** The system prompt of a summary request. */
export const SUMMARY_SYSTEM = "You write the summary a coding agent continues its work from.";

/**
 * A tool result longer than this is clipped in the summary request (its start and its end kept,
 * where an exit code or a line count is), so a request about a history over the window still fits.
 */
export const SUMMARY_RESULT_CHARS = 500;

/** What a summary request needs besides the history. */
export interface SummaryRequest {
  model: string;
  /** The tools the conversation's calls name. */
  tools: Tool[];
  /** Output tokens allowed for the summary. */
  maxTokens: number;
  /** The user's own words for this summary (`/compact <instructions>`). */
  instructions?: string;
  signal: AbortSignal;
}

/**
 * Ask the model to summarise `head`. Returns the summary's text, `null` when the call was
 * interrupted; throws what the call threw (an API error, a broken stream).
 * Contract: `head` is not changed; the request is valid whenever `head` is.
 */
export async function requestSummary(
  send: SendTurn,
  head: readonly MessageParam[],
  request: SummaryRequest,
): Promise<string | null> {
  const response = await send(summaryRequest(head, request), request.signal);
  if (!response) return null;
  return AgentTurn.fromResponse(response).text.trim();
}

/** The request that asks for a summary of `head`, as `requestSummary` sends it (its size is what must fit the window). */
export function summaryRequest(
  head: readonly MessageParam[],
  request: SummaryRequest,
): MessageCreateParamsNonStreaming {
  const messages = head.map(clipResults);
  const extra = request.instructions ? `\n\nAdditional instructions from the user: ${request.instructions}` : "";
  appendUserText(messages, `${SUMMARY_PROMPT}${extra}`);
  return {
    model: request.model,
    max_tokens: request.maxTokens,
    system: SUMMARY_SYSTEM,
    tools: request.tools,
    tool_choice: { type: "none" },
    messages,
  };
}

/** A copy of the message, each tool result clipped to `SUMMARY_RESULT_CHARS`: its start and its end. */
function clipResults(message: MessageParam): MessageParam {
  if (typeof message.content === "string") return { ...message };
  const content = message.content.map((block) => {
    if (block.type !== "tool_result" || typeof block.content !== "string") return block;
    const text = block.content;
    if (text.length <= SUMMARY_RESULT_CHARS) return block;
    const end = Math.floor(SUMMARY_RESULT_CHARS / 5);
    const cut = text.length - SUMMARY_RESULT_CHARS;
    return {
      ...block,
      content: `${text.slice(0, SUMMARY_RESULT_CHARS - end)}\n[… ${cut} characters cut …]\n${text.slice(-end)}`,
    };
  });
  return { ...message, content } as MessageParam;
}
