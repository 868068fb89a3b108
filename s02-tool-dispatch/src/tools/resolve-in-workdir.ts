/**
 * Confinement: every file tool resolves its path here, and a path that leaves the working
 * directory (`../`, an absolute path elsewhere, or a symlink pointing out) is refused. The check
 * is on the real path, so a link inside the directory cannot lead outside it. A path inside
 * `.harness/` is refused too: the harness keeps its own files there, and they never reach the model.
 * A hard link cannot be told apart from the file it links to, so one that leads out is not caught.
 */
import { lstatSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

/** The directory in the working directory that holds the harness's own files (settings). */
export const HARNESS_DIRECTORY = ".harness";

/** A path inside the working directory, or why it is refused (the error code and its message). */
export type Resolved =
  | { ok: true; path: string }
  | { ok: false; code: "outside_workdir" | "harness_file"; reason: string };

/** Resolve `path` against `cwd` and refuse it unless it stays inside `cwd` (links followed) and out of `.harness/`. */
export function resolveInWorkdir(cwd: string, path: string): Resolved {
  const absolute = resolve(cwd, path);
  const refused: Resolved = {
    ok: false,
    code: "outside_workdir",
    reason: `${path} is outside the working directory ${cwd}`,
  };
  if (!isInside(resolve(cwd), absolute)) return refused;
  // follow links on the longest part of the path that exists (a file to create does not yet);
  // a link counts as existing even when its target does not, so a dangling link is refused
  let existing = absolute;
  while (!isPresent(existing) && dirname(existing) !== existing) existing = dirname(existing);
  let inside: string;
  try {
    const root = realpathSync(cwd);
    const real = join(realpathSync(existing), relative(existing, absolute));
    if (!isInside(root, real)) return refused;
    inside = relative(root, real);
  } catch {
    return refused; // a dangling or looping link
  }
  if (inside.split(sep).includes(HARNESS_DIRECTORY)) {
    return {
      ok: false,
      code: "harness_file",
      reason: `${path} is inside ${HARNESS_DIRECTORY}/, the harness's own files`,
    };
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
