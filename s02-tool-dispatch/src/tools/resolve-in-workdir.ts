/**
 * Confinement: every file tool resolves its path here, and a path that leaves the working
 * directory (`../`, an absolute path elsewhere, or a symlink pointing out) is refused. The check
 * is on the real path, so a link inside the directory cannot lead outside it.
 */
import { lstatSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";

/** A path inside the working directory, or why it is refused. */
export type Resolved = { ok: true; path: string } | { ok: false; reason: string };

/** Resolve `path` against `cwd` and refuse it unless it stays inside `cwd`, links followed. */
export function resolveInWorkdir(cwd: string, path: string): Resolved {
  const absolute = resolve(cwd, path);
  const refused: Resolved = { ok: false, reason: `${path} is outside the working directory ${cwd}` };
  if (!isInside(resolve(cwd), absolute)) return refused;
  // follow links on the longest part of the path that exists (a file to create does not yet);
  // a link counts as existing even when its target does not, so a dangling link is refused
  let existing = absolute;
  while (!isPresent(existing) && dirname(existing) !== existing) existing = dirname(existing);
  try {
    if (!isInside(realpathSync(cwd), realpathSync(existing))) return refused;
  } catch {
    return refused; // a dangling or looping link
  }
  return { ok: true, path: absolute };
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel.split(sep)[0] !== ".." && !isAbsolute(rel); // "..notes" is a name inside, "../notes" is not
}

/** True when anything is at `path`: a link counts even when it points nowhere (lstat, not stat). */
function isPresent(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
