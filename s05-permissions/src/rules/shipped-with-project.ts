/**
 * A file the user keeps for themself inside the project's `.harness` (settings.local.json) may
 * still have come with the clone: committed (git tracks it), or reached through a symbolic link
 * that leaves the project's own `.harness` (the file is a link, or `.harness` is). Either way the
 * repository chose what it says, so it counts as the project's, not the user's.
 */
import { execFileSync } from "node:child_process";
import { realpathSync } from "node:fs";
import { join, sep } from "node:path";

/**
 * Why `file` (relative to `cwd`, inside `.harness`) came with the project: `"tracked by git"` or
 * `"a link out of .harness"`; undefined when it is the user's own.
 * Contract: never throws; a file that does not exist is nobody's (undefined).
 */
export function shippedWithProject(cwd: string, file: string): string | undefined {
  let real: string;
  let own: string;
  try {
    real = realpathSync(join(cwd, file));
    own = join(realpathSync(cwd), ".harness") + sep;
  } catch {
    return undefined; // no such file
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
