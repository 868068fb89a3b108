/**
 * Reading a transcript back, strictly except at its very end. A line counts once its newline is on
 * disk: a last line without one, or one that is not JSON, was cut short by a crash or a power cut
 * (or is being written by another process right now), and is skipped and reported. Anything else
 * that is wrong (a bad line before the last, a header from a newer version, a file that is not a
 * transcript, records that do not follow one another, a symbolic link in its place) is an error,
 * and nothing is guessed: the loader never rewrites a file it does not understand.
 */
import { lstatSync, readFileSync, readlinkSync } from "node:fs";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { loadZod, type Zod } from "@harness/s02-tool-dispatch";
import { addMessage } from "./add-message.ts";
import { isSessionId, type MessageRecord, type SessionHeader, TRANSCRIPT_VERSION } from "./store/transcript-record.ts";

/** The shapes of a transcript's lines, built the first time one is read (s02's `loadZod`). */
function shapesWith(z: Zod) {
  const sessionId = z.string().refine(isSessionId, "is not a session id");
  /** The header's shape; `version` is checked on its own, so a newer one gets its own error. */
  const sessionHeaderShape = z.object({
    type: z.literal("session"),
    version: z.number().int().positive(),
    id: sessionId,
    cwd: z.string(),
    created: z.string(),
    forkedFrom: sessionId.optional(),
  });
  const block = z.looseObject({ type: z.string() });
  /** A message line's shape: the record's fields, and a message the Messages API could take; fields it does not know are kept. */
  const messageRecordShape = z.looseObject({
    type: z.literal("message"),
    id: z.string().min(1),
    parentId: z.string().min(1).nullable(),
    time: z.string(),
    model: z.string(),
    usage: z.object({ inputTokens: z.number(), outputTokens: z.number() }).optional(),
    message: z.object({
      role: z.enum(["user", "assistant"]),
      content: z.union([z.string(), z.array(block)]),
    }),
  });
  return { sessionHeaderShape, messageRecordShape };
}
let shapes: ReturnType<typeof shapesWith> | undefined;
function transcriptShapes() {
  shapes ??= shapesWith(loadZod());
  return shapes;
}

/** A transcript that cannot be used as it is; the message is one line, naming the file. */
export class TranscriptError extends Error {}

/** A transcript as read. */
export interface Transcript {
  path: string;
  header: SessionHeader;
  /** Its messages, in order. */
  records: MessageRecord[];
  /** The torn last line, when there is one: its number (from 1) and where it starts, in bytes. */
  torn?: { line: number; offset: number; bytes: number };
}

/**
 * Read the transcript at `path`.
 * Throws `TranscriptError` when it cannot be read, is a symbolic link (a transcript is a file of
 * the harness's own: one that points elsewhere would be read from and appended to there), is not
 * a transcript, comes from a newer version, or has a bad line before its last.
 */
export function readTranscript(path: string): Transcript {
  let bytes: Buffer;
  try {
    if (lstatSync(path).isSymbolicLink()) {
      throw new TranscriptError(
        `${path} is a symbolic link (to ${readlinkSync(path)}), not a transcript of its own; the file is left as it is`,
      );
    }
    bytes = readFileSync(path);
  } catch (error) {
    if (error instanceof TranscriptError) throw error;
    throw new TranscriptError(`${path} cannot be read: ${(error as Error).message}`);
  }
  const fail = (why: string) => new TranscriptError(`${path}: ${why}; the file is left as it is`);
  const records: MessageRecord[] = [];
  let header: SessionHeader | undefined;
  let torn: Transcript["torn"];
  let previous: string | null = null;
  for (let offset = 0, line = 1; offset < bytes.length; line++) {
    const newline = bytes.indexOf(10, offset);
    const end = newline === -1 ? bytes.length : newline;
    const last = newline === -1 || newline === bytes.length - 1;
    const parsed = parseJson(bytes.toString("utf8", offset, end));
    if (newline === -1 || (parsed === undefined && last)) {
      if (line === 1) throw fail("not a transcript: its first line is not whole");
      torn = { line, offset, bytes: bytes.length - offset };
      break;
    }
    if (line === 1) {
      header = readHeader(parsed, fail);
    } else {
      if (parsed === undefined) throw fail(`line ${line} is not JSON`);
      const record = transcriptShapes().messageRecordShape.safeParse(parsed);
      if (!record.success) throw fail(`line ${line} is not a message record (${record.error.issues[0].message})`);
      if (record.data.parentId !== previous) {
        throw fail(`line ${line} does not follow line ${line - 1} (its parentId is not that record's id)`);
      }
      records.push(record.data as MessageRecord);
      previous = record.data.id;
    }
    offset = end + 1;
  }
  if (!header) throw fail("not a transcript: it is empty");
  return { path, header, records, ...(torn ? { torn } : {}) };
}

/** The history the records make, each message added as the loop added it. */
export function historyOf(records: readonly MessageRecord[]): MessageParam[] {
  const history: MessageParam[] = [];
  // a copy of each message: joining one to the next replaces its content, not the record's
  for (const record of records) addMessage(history, { ...record.message });
  return history;
}

function readHeader(parsed: unknown, fail: (why: string) => TranscriptError): SessionHeader {
  const fields = (parsed ?? {}) as { type?: unknown; version?: unknown };
  if (fields.type !== "session") throw fail("not a transcript: its first line is not a session header");
  if (typeof fields.version === "number" && fields.version > TRANSCRIPT_VERSION) {
    throw fail(
      `written by a newer version of the harness (transcript version ${fields.version}; this one reads up to ${TRANSCRIPT_VERSION})`,
    );
  }
  const header = transcriptShapes().sessionHeaderShape.safeParse(parsed);
  if (!header.success) throw fail(`its session header is not valid (${header.error.issues[0].message})`);
  return header.data as SessionHeader;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
