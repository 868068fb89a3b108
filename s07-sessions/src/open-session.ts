/**
 * Opening a session: a new one, the latest one (`--continue`), a named one (`--resume`), or a
 * copy of either (`--fork`). A session resumed in place is locked first, then read; a torn last
 * line is cut off, and tool calls left without a result are answered "interrupted", in the file
 * too. A session that another running process holds is forked instead: both go on, neither loses
 * a line. A transcript whose header names another project (two paths that differ only in
 * punctuation share a data folder) is refused. What was done is said in `notes`, one line each.
 */
import { truncateSync } from "node:fs";
import { join, resolve } from "node:path";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { historyProblems } from "@harness/shared";
import { addMessage } from "./add-message.ts";
import { interruptedResults } from "./interrupted-results.ts";
import { historyOf, readTranscript, type Transcript, TranscriptError } from "./read-transcript.ts";
import { type HeldLock, lockSession } from "./store/lock-session.ts";
import {
  findSession,
  listSessions,
  reachableByTools,
  type SessionFile,
  sessionPath,
  sessionsDir,
} from "./store/sessions-dir.ts";
import { type SessionHeader, TRANSCRIPT_VERSION } from "./store/transcript-record.ts";
import { TranscriptWriter } from "./transcript-writer.ts";

/** Which session to open. */
export type SessionChoice =
  | { kind: "new" }
  | { kind: "continue"; fork: boolean }
  | { kind: "resume"; id: string; fork: boolean };

/** An open session. */
export interface OpenSession {
  /** Appends to its transcript. */
  writer: TranscriptWriter;
  /** The history it goes on from (empty for a new session). */
  history: MessageParam[];
  /** What opening it did, for the user: resumed, forked, repaired, skipped. */
  notes: string[];
  /** Close the transcript and release the lock. */
  close(): void;
}

/** Where and for whom a session opens. */
export interface OpenSessionOptions {
  /** The project: its sessions are in `sessionsDir(cwd)`. */
  cwd: string;
  /** The model the session talks to (recorded on the user's messages). */
  model: string;
  /** The keys a transcript must never hold (s04's `secretsOf`). */
  secrets: readonly string[];
  env?: NodeJS.ProcessEnv;
}

/**
 * Open the session `choice` names.
 * Contract: the history it returns is one the API accepts; a file it cannot read as a transcript
 * is an error and is left as it is; a session another process holds is never written to.
 */
export function openSession(choice: SessionChoice, options: OpenSessionOptions): OpenSession {
  const dir = sessionsDir(options.cwd, options.env);
  const reachable = reachableByTools(options.cwd, dir);
  if (reachable) throw new Error(`the transcripts must be out of the tools' reach: ${reachable}`);
  if (choice.kind === "new") return start(dir, options, []);
  const file = choice.kind === "continue" ? latest(dir) : findSession(dir, choice.id);
  if (choice.fork) return fork(dir, options, file, [], ofThisProject(readTranscript(file.path), options.cwd));
  const lock = lockSession(lockPath(dir, file.id));
  if (lock.kind === "in_use") {
    const note = `session ${file.id} is open in process ${lock.pid}: forked it, so neither loses a line`;
    return fork(dir, options, file, [note], ofThisProject(readTranscript(file.path), options.cwd));
  }
  try {
    return resume(options, file, lock);
  } catch (error) {
    lock.release();
    throw error;
  }
}

/** A new session: its file appears with its first message. */
function start(dir: string, options: OpenSessionOptions, notes: string[], forkedFrom?: string): OpenSession {
  const id = crypto.randomUUID();
  const lock = lockSession(lockPath(dir, id));
  if (lock.kind !== "held") throw new Error(`session ${id} is locked already`); // a new id: a bug, not input
  const header: SessionHeader = {
    type: "session",
    version: TRANSCRIPT_VERSION,
    id,
    cwd: options.cwd,
    created: new Date().toISOString(),
    ...(forkedFrom ? { forkedFrom } : {}),
  };
  const writer = new TranscriptWriter(sessionPath(dir, id), header, { model: options.model, secrets: options.secrets });
  return { writer, history: [], notes, close: closing(writer, lock) };
}

/** The session in place: the torn line cut off, the unanswered calls answered. */
function resume(options: OpenSessionOptions, file: SessionFile, lock: HeldLock): OpenSession {
  const transcript = ofThisProject(readTranscript(file.path), options.cwd); // read once locked: no one appends any more
  const history = historyOf(transcript.records);
  const repair = checked(transcript, history);
  const notes = [`resumed session ${file.id}: ${count(transcript.records.length)} (${file.path})`];
  if (transcript.torn) {
    truncateSync(file.path, transcript.torn.offset);
    notes.push(`${tornNote(transcript)}: cut it off`);
  }
  const writer = new TranscriptWriter(file.path, transcript.header, {
    model: options.model,
    lastId: transcript.records.at(-1)?.id ?? null,
    exists: true,
    secrets: options.secrets,
  });
  notes.push(...repaired(writer, history, repair));
  return { writer, history, notes, close: closing(writer, lock) };
}

/** A new session holding a copy of `from`'s history; `from`'s file is only read. */
function fork(
  dir: string,
  options: OpenSessionOptions,
  from: SessionFile,
  notes: string[],
  transcript: Transcript,
): OpenSession {
  const history = historyOf(transcript.records);
  const repair = checked(transcript, history);
  const session = { ...start(dir, options, notes, from.id), history };
  session.writer.copy(transcript.records);
  const forked = `forked session ${from.id} as ${session.writer.sessionId}`;
  notes.push(`${forked}: ${count(transcript.records.length)} (${session.writer.path})`);
  if (transcript.torn) notes.push(`${tornNote(transcript)}: left out of the fork`);
  notes.push(...repaired(session.writer, history, repair));
  return session;
}

/** `transcript`, when its header names the project in `cwd`; otherwise a `TranscriptError`. */
function ofThisProject(transcript: Transcript, cwd: string): Transcript {
  const { header, path } = transcript;
  if (resolve(header.cwd) === resolve(cwd)) return transcript;
  throw new TranscriptError(
    `${path}: a session of another project (${header.cwd}), not of ${resolve(cwd)}; the file is left as it is`,
  );
}

/** The repair `history` needs, once the whole is known to be one the API accepts. */
function checked(transcript: Transcript, history: MessageParam[]): MessageParam | undefined {
  const repair = interruptedResults(history);
  const whole = repair ? [...history, repair] : history;
  const [problem] = whole.length > 0 ? historyProblems(whole) : [];
  if (problem) {
    throw new TranscriptError(
      `${transcript.path}: its history is not one the API accepts (${problem}); the file is left as it is`,
    );
  }
  return repair;
}

/** Write the repair, add it to the history, and say what it answered. */
function repaired(writer: TranscriptWriter, history: MessageParam[], repair: MessageParam | undefined): string[] {
  if (!repair) {
    const last = history.at(-1);
    return last?.role === "user" ? ["the model had not answered the last message; it goes with your next prompt"] : [];
  }
  const asked = history.at(-1)?.content;
  const calls = Array.isArray(asked) ? asked.flatMap((b) => (b.type === "tool_use" ? [b.name] : [])) : [];
  writer.append(repair);
  addMessage(history, repair);
  return [`repaired: ${calls.join(", ")} had no result recorded; answered "interrupted"`];
}

function latest(dir: string): SessionFile {
  const [newest] = listSessions(dir);
  if (!newest) throw new Error(`no session to continue in this project (${dir}); start one without --continue`);
  return newest;
}

function lockPath(dir: string, id: string): string {
  return join(dir, `${id}.lock`);
}

function closing(writer: TranscriptWriter, lock: HeldLock): () => void {
  return () => {
    writer.close();
    lock.release();
  };
}

function tornNote(transcript: Transcript): string {
  const torn = transcript.torn;
  return `skipped line ${torn?.line}, not whole (${torn?.bytes} bytes: a write cut short)`;
}

function count(messages: number): string {
  return `${messages} message${messages === 1 ? "" : "s"}`;
}
