/**
 * What a transcript holds: one JSON object per line. The first line says which session it is
 * (its id, where it ran, which version of the format wrote it, and the session it was forked
 * from); every line after it is one message, with its own id and its parent's, in the order the
 * conversation added them.
 *
 * A line is a message as it was added to the history, not always a whole message of it: after a
 * `pause_turn` the model's continuation joins the assistant message before it, and a prompt typed
 * after an unanswered one joins it. `addMessage` does that joining, in memory and on load alike.
 */
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import type { TokenUsage } from "@harness/shared";

/** The format this harness writes, and the newest it reads. */
export const TRANSCRIPT_VERSION = 1;

/** The first line of a transcript. */
export interface SessionHeader {
  type: "session";
  /** The format's version (`TRANSCRIPT_VERSION` when this harness wrote it). */
  version: number;
  /** The session's id, a UUID; the file is `<id>.jsonl`. */
  id: string;
  /** The working directory the session ran in. */
  cwd: string;
  /** When the session began (ISO 8601). */
  created: string;
  /** The session this one was forked from: its history is a copy of that one's, up to the fork. */
  forkedFrom?: string;
}

/** One message added to the history. */
export interface MessageRecord {
  type: "message";
  /** The record's own id, a UUID. */
  id: string;
  /** The id of the record before it; `null` for the first. */
  parentId: string | null;
  /** When it was added (ISO 8601). */
  time: string;
  /** For the model's messages, the model that wrote it (the response says); for the user's, the model id requested. */
  model: string;
  /** For the model's messages, the tokens its call took. */
  usage?: TokenUsage;
  /** The message, as the Messages API takes it. */
  message: MessageParam;
}

/** A line of a transcript. */
export type TranscriptRecord = SessionHeader | MessageRecord;

/** True for a session id: a UUID in lower case, as `crypto.randomUUID` makes them. */
export function isSessionId(id: string): boolean {
  return SESSION_ID.test(id);
}
const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
