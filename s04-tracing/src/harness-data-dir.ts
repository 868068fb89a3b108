/**
 * Where the harness keeps its own data for a project: outside the project, so that nothing the
 * harness writes about a run (a trace, a transcript) lies where the model's tools search, and
 * nothing is left in the user's repository. One directory per project, named after the project's
 * absolute path: `~/.harness/projects/-work-main` for `/work/main`.
 */
import { createHash } from "node:crypto";
import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** The longest directory name `projectSlug` makes (file systems allow 255 bytes). */
export const MAX_SLUG_LENGTH = 200;

/**
 * The directory that holds the harness's data for the project in `cwd`:
 * `$HARNESS_HOME/projects/<slug>`, with HARNESS_HOME defaulting to `~/.harness`.
 * Contract: a pure function of its arguments; it creates nothing.
 */
export function harnessDataDir(cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  const home = env.HARNESS_HOME ? resolve(env.HARNESS_HOME) : join(homedir(), ".harness");
  return join(home, "projects", projectSlug(cwd));
}

/**
 * A directory's absolute path as one readable file name: every character other than a letter or
 * a digit becomes `-` (`/work/my.app` → `-work-my-app`). A name longer than MAX_SLUG_LENGTH is
 * cut, and a hash of the whole path keeps it apart from others cut the same way.
 * Contract: two paths that differ only in punctuation share a slug (as in Claude Code's
 * `~/.claude/projects`); the slug is for finding a project's data, not for telling paths apart.
 */
export function projectSlug(dir: string): string {
  const absolute = resolve(dir);
  const slug = absolute.replace(/[^A-Za-z0-9]/g, "-");
  if (slug.length <= MAX_SLUG_LENGTH) return slug;
  const hash = createHash("sha256").update(absolute).digest("hex").slice(0, 12);
  return `${slug.slice(0, MAX_SLUG_LENGTH - hash.length - 1)}-${hash}`;
}
