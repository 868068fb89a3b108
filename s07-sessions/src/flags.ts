/**
 * s07's options, and what they build: the session every prompt is written to. A new one, or
 * `--continue` (this project's latest), `--resume[=ID]` (a named one; alone, picked at the
 * terminal), each with `--fork` to go on in a copy.
 */

import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import type { AskAnswer, CliOptions, ExtraOption } from "@harness/cli";
import { addMessage } from "./add-message.ts";
import { interruptedResults } from "./interrupted-results.ts";
import { formatSessionLine } from "./list/format-sessions.ts";
import { type OpenSession, openSession, type SessionChoice } from "./open-session.ts";
import { listSessions, sessionsDir } from "./store/sessions-dir.ts";

/** The session's options. */
export const SESSION_FLAGS: readonly ExtraOption[] = [
  { name: "continue", type: "boolean", help: "--continue          go on with this project's most recent session" },
  {
    name: "resume",
    type: "string",
    optionalValue: true,
    help: "--resume[=ID]       go on with session ID (alone: pick one on the terminal)",
  },
  {
    name: "fork",
    type: "boolean",
    help: "--fork              with --continue or --resume: go on in a copy, the original left as it is",
  },
];

/** How many sessions `--resume` offers to pick from. */
export const SESSIONS_OFFERED = 10;

/** What opening the session needs besides the options. */
export interface OpenSessionForOptions {
  /** The model the session talks to (recorded on the user's messages). */
  model: string;
  /** The keys a transcript must never hold (s04's `secretsOf`). */
  secrets: readonly string[];
  env: NodeJS.ProcessEnv;
  /** Asks at the terminal which session `--resume` alone means; absent without a terminal. */
  ask?: (question: string) => Promise<AskAnswer>;
  /** Tells the user one line: the sessions offered, and what opening did (resumed, forked, repaired). */
  say(line: string): void;
}

/**
 * Open the session the options name.
 * Contract: options that do not go together (`--continue` with `--resume`, `--fork` alone) and a
 * session that cannot be found or read throw one line, before any prompt runs.
 */
export async function openSessionFor(options: CliOptions, how: OpenSessionForOptions): Promise<OpenSession> {
  const { extra, cwd } = options;
  if (extra.continue === true && extra.resume !== undefined)
    throw new Error("--continue and --resume: give one of them");
  if (extra.fork === true && extra.continue !== true && extra.resume === undefined) {
    throw new Error("--fork goes with --continue or --resume: it copies the session they open");
  }
  const choice = await chooseSession(options, how);
  const session = openSession(choice, { cwd, model: how.model, secrets: how.secrets, env: how.env });
  session.notes.forEach(how.say);
  return session;
}

/** The session the options name; `--resume` alone asks on the terminal which one. */
async function chooseSession({ extra, cwd }: CliOptions, how: OpenSessionForOptions): Promise<SessionChoice> {
  const fork = extra.fork === true;
  if (extra.continue === true) return { kind: "continue", fork };
  if (typeof extra.resume === "string") return { kind: "resume", id: extra.resume, fork };
  if (extra.resume !== true) return { kind: "new" };
  const offered = listSessions(sessionsDir(cwd, how.env)).slice(0, SESSIONS_OFFERED);
  if (offered.length === 0) throw new Error("no session to resume in this project; start one without --resume");
  if (!how.ask) {
    const ids = offered.map((s) => s.id).join(", ");
    throw new Error(`--resume needs an id when there is no terminal to pick on: --resume=ID (the latest: ${ids})`);
  }
  how.say("the sessions of this project, the most recent first:");
  offered.forEach((file, i) => {
    how.say(`  ${i + 1}. ${formatSessionLine(file)}`);
  });
  for (const [i, file] of offered.entries()) {
    if ((await how.ask(`resume ${i + 1} (${file.id.slice(0, 8)})?`)) === "yes")
      return { kind: "resume", id: file.id, fork };
  }
  throw new Error("no session was picked");
}

/**
 * What follows each run of a session: a run that threw (a transcript that could not be written)
 * has what it left unanswered answered; a new session says where it is written, once its file exists.
 */
export function sessionAfterRun(session: OpenSession, say: (line: string) => void) {
  let announced = session.history.length > 0; // opening a resumed session said which one it is
  return (history: MessageParam[], result?: unknown): void => {
    const repair = result ? undefined : interruptedResults(history);
    if (repair) addMessage(history, repair);
    if (!announced && session.writer.lastId !== null) {
      say(`session ${session.writer.sessionId} → ${session.writer.path}`);
      announced = true;
    }
  };
}
