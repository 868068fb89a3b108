/**
 * Where a project's sessions live: `sessions/` in the harness's data directory for the project
 * (`harnessDataDir`: `~/.harness/projects/<slug>`, or under HARNESS_HOME), one `<id>.jsonl` per
 * session and, while a process has it open, its `<id>.lock`. Outside the project, so the model's
 * tools never come upon a transcript.
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { resolveInWorkdir } from "@harness/s02-tool-dispatch";
import { harnessDataDir } from "@harness/s04-tracing";
import { isSessionId } from "./transcript-record.ts";

/** The sessions of the project in `cwd`: `<harness data dir>/sessions`. */
export function sessionsDir(cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(harnessDataDir(cwd, env), "sessions");
}

/** The transcript of session `id` in `dir`. */
export function sessionPath(dir: string, id: string): string {
  return join(dir, `${id}.jsonl`);
}

/**
 * Why the model's file tools could reach `dir` from `cwd`, or `undefined` when they cannot: it is
 * outside the working directory, or inside a `.harness/` directory, both of which they refuse.
 * (HARNESS_HOME set to a folder inside the project is the way it happens.)
 */
export function reachableByTools(cwd: string, dir: string): string | undefined {
  if (!resolveInWorkdir(cwd, dir).ok) return undefined;
  return `${dir} is inside the working directory ${cwd}, where the model's tools read: set HARNESS_HOME outside it`;
}

/** A session on disk. */
export interface SessionFile {
  id: string;
  path: string;
  /** When the transcript was last written to (ms since the epoch). */
  modified: number;
}

/** The sessions in `dir`, the most recently written first; none when `dir` does not exist. */
export function listSessions(dir: string): SessionFile[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const sessions: SessionFile[] = [];
  for (const name of names) {
    const id = name.slice(0, -".jsonl".length);
    if (!name.endsWith(".jsonl") || !isSessionId(id)) continue;
    const path = join(dir, name);
    try {
      sessions.push({ id, path, modified: statSync(path).mtimeMs });
    } catch {} // removed since the listing
  }
  return sessions.sort((a, b) => b.modified - a.modified || a.id.localeCompare(b.id));
}

/**
 * The session whose id is `id`, or the only one whose id starts with it (at least 4 characters).
 * Throws a one-line error when there is none, or more than one.
 */
export function findSession(dir: string, id: string): SessionFile {
  const sessions = listSessions(dir);
  const exact = sessions.find((s) => s.id === id);
  if (exact) return exact;
  const matches = /^[0-9a-f-]{4,}$/.test(id) ? sessions.filter((s) => s.id.startsWith(id)) : [];
  if (matches.length === 1) return matches[0];
  if (matches.length > 1) {
    throw new Error(`"${id}" begins ${matches.length} sessions' ids; give more of it (pnpm sessions list shows them)`);
  }
  throw new Error(`no session "${id}" in this project (pnpm sessions list shows them)`);
}
