/**
 * One writer per transcript. Two processes appending to one file would interleave their lines
 * into a history that belongs to neither, so a process holds the session's lock while it has the
 * session open: `<id>.lock`, holding its pid. Creating a file that must not exist yet is atomic
 * (the file is written beside it and linked into place, which fails when the name is taken, as an
 * O_EXCL open does, and it never holds a half-written pid), so of two processes only one can.
 *
 * A lock whose process is gone (a crash, `kill -9`) is stale and is taken over; so is one that
 * holds no pid at all (empty, or garbage: this code never writes one, so no live process holds
 * it). Taking it over is the delicate part: two processes that both see it stale must not both
 * delete it and each make its own. So the right to delete a stale lock is itself a file made the
 * same atomic way, `<id>.lock.<pid>.dead`; one process gets it, checks the lock still holds what
 * it read, deletes it, and tries again like everyone else. A right whose process died before it
 * was done is stale in turn, and is deleted.
 */
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

/** A lock this process holds. */
export interface HeldLock {
  kind: "held";
  path: string;
  /** Delete the lock, if it is still this process's. */
  release(): void;
}

/** A session's lock: held by this process, or by another one that is running. */
export type SessionLock = HeldLock | { kind: "in_use"; pid: number };

/** How many times a lock is tried before the session is left to the process that seems to have it. */
const ATTEMPTS = 50;

/**
 * Take the lock at `path` for this process.
 * Contract: at most one running process holds a lock at a time; a lock whose process no longer
 * runs is taken over; `in_use` names the process that holds it. `release` deletes it, only when
 * it is still this process's.
 */
export function lockSession(path: string): SessionLock {
  const pid = process.pid;
  mkdirSync(dirname(path), { recursive: true });
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    if (createHolding(path, pid)) {
      return { kind: "held", path, release: () => readPid(path) === pid && rmSync(path, { force: true }) };
    }
    const held = readText(path);
    if (held === undefined) continue; // released a moment ago: try again
    const holder = pidIn(held);
    if (holder !== undefined && isRunning(holder)) return { kind: "in_use", pid: holder }; // this process too: one writer per file
    // stale: its process is gone, or it names none
    const right = `${path}.${holder ?? "unreadable"}.dead`;
    if (createHolding(right, pid)) {
      try {
        if (readText(path) === held) rmSync(path, { force: true });
      } finally {
        rmSync(right, { force: true });
      }
    } else {
      const clearer = readPid(right);
      if (clearer !== undefined && !isRunning(clearer))
        rmSync(right, { force: true }); // it died clearing
      else pause(10); // another process is clearing it
    }
  }
  // another process has been clearing it all this time: leave the lock to it
  return { kind: "in_use", pid: readPid(path) ?? -1 };
}

/** Create `path` holding `pid`, atomically; false when it exists. */
function createHolding(path: string, pid: number): boolean {
  const temporary = `${path}.${pid}.tmp`;
  writeFileSync(temporary, `${pid}\n`);
  try {
    linkSync(temporary, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  } finally {
    rmSync(temporary, { force: true });
  }
}

/** What a lock file holds; `undefined` when it is gone. */
function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/** The pid in a lock file's text; `undefined` when it holds none. */
function pidIn(text: string): number | undefined {
  const pid = Number(text.trim());
  return text.trim() !== "" && Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}

/** The pid a lock holds; `undefined` when it is gone or holds none. */
function readPid(path: string): number | undefined {
  const text = readText(path);
  return text === undefined ? undefined : pidIn(text);
}

/** True while a process with this pid runs (another user's too). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
