/**
 * A compaction: the history becomes a summary of its older part, then its recent tail word for
 * word. The cut is at a turn boundary (`findCut`), so no tool_use is parted from its tool_result;
 * the user's latest request is kept word for word, in the tail or beside the summary; and the
 * result is a history the API accepts, or the old history stays. An older part too long for one
 * summary request is summarised in parts, each part's request carrying the summary so far.
 */
import type { ContentBlockParam, MessageParam, TextBlockParam } from "@anthropic-ai/sdk/resources/messages";
import type { SendTurn } from "@harness/s03-streaming";
import { isHookContext } from "@harness/s06-hooks";
import { historyProblems } from "@harness/shared";
import { estimateTokens } from "../measure-context.ts";
import { findCut, isTurnBoundary } from "./find-cut.ts";
import { requestSummary, type SummaryRequest, summaryRequest } from "./request-summary.ts";

/** What opens the summary in the compacted history. */
export const SUMMARY_OPENING = "The conversation so far was summarised to fit the context window. The summary:";

/** What a compaction did. */
export type CompactionOutcome =
  /** The history was replaced: `summarised` messages became one summary, `kept` stayed word for word. */
  | { kind: "compacted"; summarised: number; kept: number; summary: string }
  /** The history is unchanged, and why. */
  | { kind: "failed"; reason: string }
  /** Ctrl-C during the summary call: the history is unchanged. */
  | { kind: "aborted" };

/** Summary calls refused as too long that one compaction answers with smaller parts, at most. */
export const MAX_SUMMARY_REFUSALS = 3;

/** How to compact: the summary request's settings, and how much recent history to keep. */
export interface CompactOptions extends SummaryRequest {
  /** Keep at most this many tokens of the latest turns word for word (estimated). */
  tailTokens: number;
  /** Tokens a summary request may carry (estimated; default: no bound): a longer part is split. */
  requestTokens?: number;
  /** Reads a "too long" refusal off an error: a summary call refused so is asked again in smaller parts. */
  tooLong?: (error: unknown) => unknown;
  /** One line for the error that failed the summary call (default: its message's first line). */
  describeError?: (error: unknown) => string;
}

/**
 * Summarise the older part of `messages` and replace it, in place.
 * Contract: on every outcome `messages` is a history the API accepts (if it was one); on
 * "failed" and "aborted" it is unchanged. Never throws: a failed summary call is a "failed" outcome.
 */
export async function compactHistory(
  send: SendTurn,
  messages: MessageParam[],
  options: CompactOptions,
): Promise<CompactionOutcome> {
  const cut = findCut(messages, options.tailTokens);
  if (cut < 1 || messages.length < 2) return { kind: "failed", reason: "there is nothing to summarise yet" };
  // the head in parts that fit a request, each summarised with the summary of those before it
  let summary = "";
  let limit = options.requestTokens ?? Number.POSITIVE_INFINITY;
  let refusals = 0;
  for (let from = 0; from < cut; ) {
    const to = partEnd(messages, from, cut, summary, limit, options);
    const part = headOf(messages, from, to, summary);
    let next: string | null;
    try {
      next = await requestSummary(send, part, options);
    } catch (error) {
      if (options.signal.aborted) return { kind: "aborted" };
      // refused as too long: smaller parts, unless this one was a single turn already
      if (options.tooLong?.(error) && to > nextTurn(messages, from) && refusals++ < MAX_SUMMARY_REFUSALS) {
        limit = Math.floor((estimateTokens(summaryRequest(part, options)) * 3) / 4);
        continue;
      }
      return { kind: "failed", reason: `the summary call failed: ${(options.describeError ?? firstLine)(error)}` };
    }
    if (next === null) return { kind: "aborted" };
    if (next === "") return { kind: "failed", reason: "the model returned an empty summary" };
    summary = next;
    from = to;
  }

  const compacted = withSummary(messages, cut, summary);
  const [problem] = historyProblems(compacted);
  if (problem) return { kind: "failed", reason: `the compacted history would be refused: ${problem}` };
  if (estimateTokens(compacted) >= estimateTokens(messages)) {
    return { kind: "failed", reason: "the summary is no shorter than what it replaces" };
  }
  messages.splice(0, messages.length, ...compacted);
  return { kind: "compacted", summarised: cut, kept: compacted.length - 1, summary };
}

/** `messages[0..to)` as a summary request sends it: from `from` on, opened by the summary of what came before. */
function headOf(messages: readonly MessageParam[], from: number, to: number, summary: string): MessageParam[] {
  const head = messages.slice(0, to);
  return from === 0 ? head : withSummary(head, from, summary);
}

/**
 * Where the part that starts at `from` ends: the last turn boundary up to `cut` whose summary
 * request fits `limit` (a binary search: a longer part is a longer request), and at least the next
 * one (a turn longer than the estimate allows is sent all the same: the model says if it fits).
 */
function partEnd(
  messages: readonly MessageParam[],
  from: number,
  cut: number,
  summary: string,
  limit: number,
  request: SummaryRequest,
): number {
  const fits = (to: number) => estimateTokens(summaryRequest(headOf(messages, from, to, summary), request)) <= limit;
  if (limit === Number.POSITIVE_INFINITY || fits(cut)) return cut;
  const ends: number[] = [];
  for (let i = nextTurn(messages, from); i < cut; i = nextTurn(messages, i)) ends.push(i);
  let found = ends[0] ?? cut;
  for (let low = 1, high = ends.length - 1; low <= high; ) {
    const middle = (low + high) >> 1;
    if (fits(ends[middle])) {
      found = ends[middle];
      low = middle + 1;
    } else high = middle - 1;
  }
  return found;
}

/** The first turn boundary after `from` (the end of the history, at the latest). */
function nextTurn(messages: readonly MessageParam[], from: number): number {
  let i = from + 1;
  while (!isTurnBoundary(messages, i)) i++;
  return i;
}

/**
 * The history from `cut` on, opened by the summary, and by the latest request when the cut left
 * it behind: the user's words survive a compaction unchanged.
 */
export function withSummary(messages: readonly MessageParam[], cut: number, summary: string): MessageParam[] {
  const tail = messages.slice(cut);
  const opening: TextBlockParam[] = [{ type: "text", text: `${SUMMARY_OPENING}\n\n${summary}` }];
  const request = latestRequest(messages);
  if (request && request.index < cut) opening.push({ type: "text", text: request.text });
  const [first, ...rest] = tail;
  if (first?.role !== "user") return [{ role: "user", content: opening }, ...tail];
  // the tail opens with a prompt: the summary goes before it, in the same message
  const blocks: ContentBlockParam[] =
    typeof first.content === "string" ? [{ type: "text", text: first.content }] : first.content;
  return [{ role: "user", content: [...opening, ...blocks] }, ...rest];
}

/**
 * The user's latest words and where they are: the last text of the last user message with any,
 * a hook's context (s06's `isHookContext`) and a summary left aside: those are not the user's.
 */
export function latestRequest(messages: readonly MessageParam[]): { index: number; text: string } | null {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (message.role !== "user") continue;
    if (typeof message.content === "string") return { index, text: message.content };
    const texts = message.content.flatMap((b) => (b.type === "text" && !isHookContext(b.text) ? [b.text] : []));
    const text = texts.at(-1);
    if (text !== undefined && !text.startsWith(SUMMARY_OPENING)) return { index, text };
  }
  return null;
}

/** An error's message, first line. */
function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n")[0];
}
