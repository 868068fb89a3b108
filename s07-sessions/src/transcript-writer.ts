/**
 * Writing a transcript: each message as one JSON line, appended with a synchronous write before
 * the loop moves on. When `append` returns, the line is in the operating system's hands: a crash,
 * a Ctrl-C or `kill -9` of the harness loses nothing written. A power cut or a crash of the
 * machine itself can lose the last few seconds of lines (there is no fsync per line; the bench
 * shows what one would cost), and can leave a torn last line, which the loader skips.
 *
 * A transcript is only ever appended to. A new session's file appears with its first message,
 * whole: it is written beside its final name and renamed into place, so an empty or half-made
 * file never exists. A write that fails (a full disk) takes back what it wrote of its line and
 * throws one line naming the file and what it holds; a transcript that is a symbolic link is never
 * written through. Keys are redacted as in a trace (s04): a transcript never holds one.
 */
import { closeSync, constants, mkdirSync, openSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { appendWhole, redactLine, whyNot } from "@harness/s04-tracing";
import type { TokenUsage } from "@harness/shared";
import type { MessageRecord, SessionHeader } from "./store/transcript-record.ts";

/** Who wrote a message the model wrote: the model that answered, and what its call took. */
export interface AnsweredBy {
  model: string;
  usage: TokenUsage;
}

/** The event s07's loop adds: a message, told before it joins the history (the model's with who wrote it). */
export type MessageEvent = { type: "message"; message: MessageParam } & Partial<AnsweredBy>;

/** How a writer starts. */
export interface TranscriptWriterOptions {
  /** The model the user's messages are sent to (recorded on each of them). */
  model: string;
  /** The id of the transcript's last record (resuming it); `null` or absent for a new one. */
  lastId?: string | null;
  /** True when the file exists already (resuming it); otherwise the first append creates it. */
  exists?: boolean;
  /** Values to redact: the keys of the shell and .env (s04's `secretsOf`). */
  secrets: readonly string[];
}

/**
 * Appends one session's messages to its transcript.
 * Contract: one writer per file at a time (the session's lock sees to it), so each record's
 * `parentId` is the record written before it.
 */
export class TranscriptWriter {
  private last: string | null;
  private readonly model: string;
  private readonly secrets: readonly string[];
  private exists: boolean;
  private fd?: number;

  constructor(
    /** The transcript file. */
    readonly path: string,
    /** The session it belongs to. */
    readonly header: SessionHeader,
    options: TranscriptWriterOptions,
  ) {
    this.model = options.model;
    this.last = options.lastId ?? null;
    this.exists = options.exists ?? false;
    this.secrets = options.secrets;
  }

  /**
   * The listener: hand it to the loop's `emit` (with `fanOut`). Each `message` is appended, and is
   * on disk when the loop adds it to the history; a write that fails throws, and stops the run.
   */
  readonly record = (event: { type: string }): void => {
    if (event.type !== "message") return;
    const { message, model, usage } = event as MessageEvent;
    this.append(message, model !== undefined && usage !== undefined ? { model, usage } : undefined);
  };

  /** The session's id. */
  get sessionId(): string {
    return this.header.id;
  }

  /** The id of the last record written (`null` before the first). */
  get lastId(): string | null {
    return this.last;
  }

  /**
   * Append `message` as one record, and return it; the line is written when this returns.
   * `answered` is given for the model's messages; `more` are fields a later format adds to the
   * record (this one's reader keeps them and reads only its own). Throws when the file cannot be written.
   */
  append(message: MessageParam, answered?: AnsweredBy, more: Record<string, unknown> = {}): MessageRecord {
    const record: MessageRecord = {
      ...more,
      type: "message",
      id: crypto.randomUUID(),
      parentId: this.lastId,
      time: new Date().toISOString(),
      model: answered?.model ?? this.model,
      ...(answered ? { usage: answered.usage } : {}),
      message,
    };
    this.write([record]);
    return record;
  }

  /** Write records as they are, after the last one (a fork's copy of its parent's history). */
  copy(records: readonly MessageRecord[]): void {
    if (records.length > 0) this.write(records);
  }

  /** Close the file; the next append opens it again. */
  close(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
  }

  private write(records: readonly MessageRecord[]): void {
    const text = records.map((record) => `${this.line(record)}\n`).join("");
    const what = `the transcript ${this.path}`;
    if (!this.exists) {
      try {
        createWhole(this.path, `${this.line(this.header)}\n${text}`);
      } catch (error) {
        throw new Error(`${what} could not be written (${whyNot(error)}): the session has none yet`, { cause: error });
      }
      this.exists = true;
    } else {
      // appended to, never followed: a link put in its place is refused (ELOOP), not written through
      this.fd ??= openSync(this.path, constants.O_WRONLY | constants.O_APPEND | constants.O_NOFOLLOW);
      appendWhole(this.fd, Buffer.from(text), { what, kept: "every message before this one, whole" });
    }
    this.last = records.at(-1)?.id ?? this.last;
  }

  private line(record: MessageRecord | SessionHeader): string {
    return redactLine(JSON.stringify(record), this.secrets);
  }
}

/** Write `text` to `path` so that the file appears whole or not at all. */
function createWhole(path: string, text: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  mkdirSync(dirname(path), { recursive: true });
  try {
    writeFileSync(temporary, text); // this process's own name: a leftover of an earlier process with its pid is overwritten
    renameSync(temporary, path);
  } finally {
    rmSync(temporary, { force: true });
  }
}
