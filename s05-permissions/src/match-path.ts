/**
 * Whether a Read, Edit or Write rule names a file. Patterns follow gitignore (the `ignore` package,
 * the implementation eslint uses): `*.md` matches at any depth, `docs/**` and `/docs/**` only under
 * the working directory's `docs`, `//etc/**` under the file system's root, `~/.ssh/**` under home.
 *
 * A file is checked both as named and as it really is (symbolic links resolved), so a link to
 * `.env` is `.env`. A directory counts when a rule covers everything in it: grep over `.harness`
 * reads the settings as surely as read_file of `.harness/settings.json` does.
 */
import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, relative } from "node:path";
import ignore, { type Ignore } from "ignore";
import type { PathRoot, RuleSpecifier } from "./parse-rule.ts";

/** A path rule's specifier. */
type PathSpecifier = Extract<RuleSpecifier, { kind: "path" }>;

const compiled = new Map<string, Ignore>();

/**
 * True when `specifier` names one of `paths` (absolute; a file as named and as resolved).
 * `wide` for deny and ask rules, which err on the side of naming: case is ignored (on a disk that
 * ignores it, `.ENV` is `.env`) and a directory counts when the rule covers any name inside it.
 */
export function pathMatches(specifier: PathSpecifier, paths: readonly string[], cwd: string, wide: boolean): boolean {
  const key = `${wide ? "w" : "n"}${specifier.pattern}`;
  let matcher = compiled.get(key);
  if (!matcher) {
    matcher = ignore({ ignorecase: wide }).add(specifier.pattern);
    compiled.set(key, matcher);
  }
  for (const root of rootsOf(specifier.root, cwd)) {
    for (const path of paths) {
      const rel = relative(root, path);
      if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) continue;
      if (matcher.ignores(rel) || (wide && matcher.ignores(`${rel}/\u0000any`))) return true;
    }
  }
  return false;
}

const realCwds = new Map<string, string>();

/** The directories a rule's pattern is relative to; the working directory as named and as it really is. */
function rootsOf(root: PathRoot, cwd: string): string[] {
  switch (root) {
    case "filesystem":
      return ["/"];
    case "home":
      return [homedir()];
    case "cwd": {
      let real = realCwds.get(cwd);
      if (real === undefined) {
        real = pathForms(cwd, "/").at(-1) ?? cwd;
        realCwds.set(cwd, real);
      }
      return real === cwd ? [cwd] : [cwd, real];
    }
  }
}

/** A path as named (absolute) and, when it exists, as it really is. */
export function pathForms(path: string, base: string): string[] {
  const named = isAbsolute(path) ? path : join(base, path);
  try {
    const real = realpathSync.native(named);
    return real === named ? [named] : [named, real];
  } catch {
    return [named]; // not there (yet): a write may create it
  }
}

/** True when `path` (absolute) is inside `cwd` and not under its `.git` (which acceptEdits leaves alone). */
export function isEditableInside(path: string, cwd: string): boolean {
  const rel = relative(cwd, path);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) && rel.split(/[\\/]/)[0] !== ".git";
}
