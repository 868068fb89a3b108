/**
 * A compaction in s07's transcript. A transcript is only ever appended to, so a compaction is
 * written as a boundary: one record whose message is the summary that opens the compacted history,
 * carrying the rest of that history (its recent tail) with it. Read from the last boundary on, the
 * records give the summary, the tail, and whatever was added after: a resumed session loads what
 * the model was last sent, not the whole past.
 *
 * s07's own reader keeps the boundary's extra field and reads the boundary as one more message (a
 * user message after a user message or an answer, since a compaction happens before a model call),
 * so the file stays a transcript it opens, locks, repairs and forks as before.
 */
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { addMessage, historyOf, type MessageRecord, type TranscriptWriter } from "@harness/s07-sessions";
import { historyProblems } from "@harness/shared";

/** What a boundary record carries besides its message: the rest of the compacted history. */
export interface CompactionBoundary {
  /** The compacted history after its first message (the summary's), as it was. */
  tail: MessageParam[];
}

/**
 * Write the compacted `history` to the transcript as a boundary, and return the record.
 * Contract: `history` is the one the compaction left (it opens with the summary's user message).
 */
export function writeBoundary(writer: TranscriptWriter, history: readonly MessageParam[]): MessageRecord {
  const [opening, ...tail] = history;
  const boundary: CompactionBoundary = { tail };
  return writer.append(opening, undefined, { compaction: boundary });
}

/**
 * The history the records make from their last boundary on; without a boundary, all of them.
 * Contract: throws when what the boundary holds does not make a history the API accepts.
 */
export function historySinceBoundary(records: readonly MessageRecord[]): MessageParam[] {
  const at = records.findLastIndex((record) => boundaryOf(record) !== undefined);
  if (at === -1) return historyOf(records);
  const boundary = boundaryOf(records[at]) as CompactionBoundary;
  const history: MessageParam[] = [];
  // copies: joining one message to the next replaces its content, not the record's
  for (const message of [records[at].message, ...boundary.tail]) addMessage(history, structuredClone(message));
  for (const record of records.slice(at + 1)) addMessage(history, structuredClone(record.message));
  const [problem] = historyProblems(history);
  if (problem)
    throw new Error(`the compaction boundary (record ${records[at].id}) makes a history the API refuses: ${problem}`);
  return history;
}

/** A record's boundary, when it is one. */
function boundaryOf(record: MessageRecord): CompactionBoundary | undefined {
  const compaction = (record as MessageRecord & { compaction?: unknown }).compaction as { tail?: unknown } | undefined;
  if (typeof compaction !== "object" || compaction === null || !Array.isArray(compaction.tail)) return undefined;
  return { tail: compaction.tail as MessageParam[] };
}
