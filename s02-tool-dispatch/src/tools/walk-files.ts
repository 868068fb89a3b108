/**
 * The files glob and grep search: a walk of a directory that honours `.gitignore` as git and
 * ripgrep do. Each directory's `.gitignore` holds rules for what lies below it, a deeper file's
 * rules win over a shallower one's (so `!keep.log` can take back `*.log`), `.git/info/exclude`
 * counts below them all, and an ignored directory is not entered. The rules themselves are the
 * `ignore` package's. `.git/` and `.harness/` (the harness's own files) are never entered;
 * `node_modules/` only when no rule ignores it. Links are not followed into directories, and a
 * linked file is kept only when its real path is inside the working directory. A caller may pass
 * `canRead`, and the walk passes by every file and directory it refuses (permission rules do).
 * Leaves out: global git excludes (`core.excludesFile`), `.ignore` and `.rgignore` files.
 */
import { readdir, stat } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import ignore, { type Ignore } from "ignore";
import { openRegularFile } from "./open-regular-file.ts";
import { HARNESS_DIRECTORY, resolveInWorkdir } from "./resolve-in-workdir.ts";

/** What the walk found: a file, something that is not one (a pipe, a socket, a device), or a directory it could not list. */
export type WalkEntry =
  | { kind: "file"; path: string }
  | { kind: "not_a_file"; path: string }
  | { kind: "unlisted"; path: string; reason: string };

/** The rules of one directory's ignore files, for the paths below it. */
interface Rules {
  dir: string;
  ignore: Ignore;
}

/** Names a walk passes by, whatever the rules say: git's data, and the harness's own files. */
const NEVER_SEARCHED = new Set([".git", HARNESS_DIRECTORY]);

/**
 * Every file under `root` (a directory inside `cwd`) that the ignore rules keep, depth first, in
 * name order, as absolute paths. A `root` that is itself ignored was asked for by name: it is
 * walked, under the rules of its own ignore files only.
 * Contract: never enters .git/ or .harness/, nor a directory `canRead` refuses; never yields a path
 * whose real path is outside `cwd`, nor one `canRead` refuses; stops when `signal` fires.
 */
export async function* walkFiles(
  cwd: string,
  root: string,
  signal?: AbortSignal,
  canRead: (path: string) => boolean = () => true,
): AsyncGenerator<WalkEntry> {
  if (!resolveInWorkdir(cwd, root).ok) return; // a root reached through a link that leads out, or .harness/
  const levels: Rules[] = await rulesOf(cwd, true);
  for (let dir = cwd; dir !== root; ) {
    dir = join(dir, relative(dir, root).split(sep)[0]);
    if (isIgnored(levels, dir, true)) {
      yield* walk(cwd, root, await rulesOf(root, false), signal, canRead);
      return;
    }
    levels.push(...(await rulesOf(dir, false)));
  }
  yield* walk(cwd, root, levels, signal, canRead);
}

async function* walk(
  cwd: string,
  dir: string,
  levels: Rules[],
  signal: AbortSignal | undefined,
  canRead: (path: string) => boolean,
): AsyncGenerator<WalkEntry> {
  if (signal?.aborted) return;
  const entries = await readdir(dir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => error);
  if (entries instanceof Error) {
    const reason = `${relative(cwd, dir) || "."}/ could not be listed (${entries.code}).`;
    yield { kind: "unlisted", path: dir, reason };
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (NEVER_SEARCHED.has(entry.name) || !canRead(path)) continue;
    if (entry.isDirectory()) {
      if (!isIgnored(levels, path, true)) {
        yield* walk(cwd, path, [...levels, ...(await rulesOf(path, false))], signal, canRead);
      }
      continue;
    }
    if (isIgnored(levels, path, false)) continue;
    if (entry.isFile()) {
      yield { kind: "file", path };
    } else if (entry.isSymbolicLink()) {
      // a link is followed to a file only, and only when it stays inside (and out of .harness/)
      if (!resolveInWorkdir(cwd, path).ok) continue;
      const target = await stat(path).catch(() => null);
      if (target?.isFile()) yield { kind: "file", path };
    } else {
      yield { kind: "not_a_file", path };
    }
  }
}

/** A path is ignored when the deepest rules that speak of it say so; a negation (`!x`) takes it back. */
function isIgnored(levels: Rules[], path: string, isDirectory: boolean): boolean {
  for (let i = levels.length - 1; i >= 0; i--) {
    const rel = relative(levels[i].dir, path).split(sep).join("/");
    const verdict = levels[i].ignore.test(isDirectory ? `${rel}/` : rel);
    if (verdict.unignored) return false;
    if (verdict.ignored) return true;
  }
  return false;
}

/** The rules a directory adds: its `.gitignore`, and for the working directory `.git/info/exclude` beneath it. */
async function rulesOf(dir: string, isTop: boolean): Promise<Rules[]> {
  const files = isTop ? [join(dir, ".git", "info", "exclude"), join(dir, ".gitignore")] : [join(dir, ".gitignore")];
  const levels: Rules[] = [];
  for (const file of files) {
    const text = await readSmallText(file);
    if (text) levels.push({ dir, ignore: ignore({ ignorecase: false }).add(text) });
  }
  return levels;
}

/** A rules file's text; "" when it is missing, or is not a regular file (a pipe here must not block the walk). */
async function readSmallText(path: string): Promise<string> {
  const opened = await openRegularFile(path, path, "read").catch(() => null);
  if (!opened?.ok) return "";
  try {
    return await opened.handle.readFile("utf8");
  } finally {
    await opened.handle.close();
  }
}

/** The most "skipped" notes one result carries; the rest are counted. */
export const MAX_SKIPPED_NOTES = 10;

/** One note per thing that could not be searched (`[skipped: why]`), at most `MAX_SKIPPED_NOTES`, then a count. */
export function skippedNotes(reasons: readonly string[]): string[] {
  const notes = reasons.slice(0, MAX_SKIPPED_NOTES).map((reason) => `[skipped: ${reason}]`);
  if (reasons.length > MAX_SKIPPED_NOTES) notes.push(`[${reasons.length - MAX_SKIPPED_NOTES} more skipped]`);
  return notes;
}
