/**
 * `pnpm sessions list | show <id>`: the sessions pnpm s07 wrote for the project pnpm was started
 * from (or --cwd's). Read only: it never writes a transcript, nor takes a lock.
 */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { isProgram } from "@harness/cli";
import { readTranscript } from "../read-transcript.ts";
import { findSession, listSessions, sessionsDir } from "../store/sessions-dir.ts";
import { formatSession, formatSessionList } from "./format-sessions.ts";

const USAGE = `sessions: the conversations pnpm s07 wrote for this project

usage: pnpm sessions list          every session of this project, the most recent first
       pnpm sessions show <id>     one session's messages, in order (an id, or its first characters)

options: --cwd DIR    the project (default: the directory pnpm was started from)

resume one with pnpm s07 --continue (the most recent) or pnpm s07 --resume=<id>`;

/** The streams and environment the command uses (tests pass their own). */
export interface SessionsCliIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
}

/** Run `pnpm sessions`; returns the exit status. Errors are one line on stderr. */
export function runSessionsCli(
  argv: string[],
  io: SessionsCliIo = { stdout: process.stdout, stderr: process.stderr, env: process.env },
): number {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { cwd: { type: "string" }, help: { type: "boolean", short: "h" } },
    });
    const say = (text: string) => io.stdout.write(`${text}\n`);
    if (values.help) {
      say(USAGE);
      return 0;
    }
    const here = io.env.INIT_CWD ?? process.cwd();
    const dir = sessionsDir(values.cwd ? resolve(here, values.cwd) : here, io.env);
    const [command, id, ...extra] = positionals;
    if (command === "list" && id === undefined) {
      say(formatSessionList(listSessions(dir), dir));
      return 0;
    }
    if (command === "show" && id !== undefined && extra.length === 0) {
      say(formatSession(readTranscript(findSession(dir, id).path)));
      return 0;
    }
    if (command === "show") throw new Error("show takes one session id (pnpm sessions list shows them)");
    io.stderr.write(`${USAGE}\n`); // asked for nothing the command does: the usage is the error
    return 1;
  } catch (error) {
    io.stderr.write(`sessions: error: ${(error as Error).message.split("\n")[0]}\n`);
    return 1;
  }
}

if (isProgram(import.meta.filename)) process.exitCode = runSessionsCli(process.argv.slice(2));
