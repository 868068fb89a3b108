/**
 * A file the user keeps for themself inside the project's `.harness` (settings.local.json) may
 * still have come with the clone: committed (git tracks it), or reached through a symbolic link
 * that leaves the project's own `.harness` (the file is a link, or `.harness` is). Either way the
 * repository chose what it says, so it counts as the project's, not the user's.
 */
import { execFileSync } from "node:child_process";
import { realpathSync } from "node:fs";
import { basename, dirname, join, sep } from "node:path";

/**
 * Why `file` (relative to `cwd`, inside `.harness`) came with the project: `"tracked by git"` or
 * `"a link out of .harness"`; undefined when it is the user's own. A file not there yet is judged
 * by where it would be written (`.harness` may be a link already).
 * Contract: never throws; without even a `.harness`, the file is the user's to make.
 */
export function shippedWithProject(cwd: string, file: string): string | undefined {
  const path = join(cwd, file);
  let real: string;
  let own: string;
  try {
    own = join(realpathSync(cwd), ".harness") + sep;
    real = realOrWhereItWouldBe(path);
  } catch {
    return undefined; // no .harness: nothing shipped there
  }
  if (!real.startsWith(own)) return "a link out of .harness";
  return isTrackedByGit(cwd, file) ? "tracked by git" : undefined;
}

/** True when git tracks `file` in the repository around `cwd` (false outside one, or without git). */
function isTrackedByGit(cwd: string, file: string): boolean {
  try {
    execFileSync("git", ["ls-files", "--error-unmatch", "--", file], { cwd, stdio: "ignore", timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}

/** The real path of `path`, or, when there is no such file, the real path of its folder with its name. */
function realOrWhereItWouldBe(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return join(realpathSync(dirname(path)), basename(path));
  }
}
