/**
 * A working directory with ways out of it: a sibling directory holding a secret, a link to the
 * secret file, a link to the sibling's subdirectory, and a link to a file that does not exist yet.
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempWorkdir } from "./temp-workdir.ts";

/** The directories of an escape layout. */
export interface EscapeLayout {
  /** The working directory the tools are confined to. */
  work: string;
  /** A directory beside it, which no tool may read or write. */
  outside: string;
}

/** The secret's text: a result that contains it has leaked. */
export const SECRET = "the secret outside";

/**
 * Build the layout: `outside/secret.txt`, `outside/dir/inner.txt`, and in `work/`: `notes.txt`,
 * `link.txt` → the secret, `linkdir` → `outside/dir`, `dangling.txt` → `outside/missing.txt`.
 */
export function escapeLayout(): EscapeLayout {
  const root = tempWorkdir("s02-escape-");
  const work = join(root, "work");
  const outside = join(root, "outside");
  mkdirSync(work);
  mkdirSync(join(outside, "dir"), { recursive: true });
  writeFileSync(join(outside, "secret.txt"), `${SECRET}\n`);
  writeFileSync(join(outside, "dir", "inner.txt"), `${SECRET} (inner)\n`);
  writeFileSync(join(work, "notes.txt"), "inside\n");
  symlinkSync(join(outside, "secret.txt"), join(work, "link.txt"));
  symlinkSync(join(outside, "dir"), join(work, "linkdir"));
  symlinkSync(join(outside, "missing.txt"), join(work, "dangling.txt"));
  return { work, outside };
}

/** The paths that lead out of `work`, each named for the way it escapes (for `it.each`). */
export const ESCAPES: [string, (layout: EscapeLayout) => string][] = [
  ["a ../ path", () => "../outside/secret.txt"],
  ["an absolute path elsewhere", ({ outside }) => join(outside, "secret.txt")],
  ["a symlink pointing out", () => "link.txt"],
  ["a file under a symlinked directory", () => "linkdir/inner.txt"],
];
