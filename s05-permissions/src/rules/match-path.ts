/**
 * Whether a Read, Edit or Write rule names a file. Patterns follow gitignore (the `ignore` package,
 * the implementation eslint uses): `*.md` matches at any depth, `docs/**` and `/docs/**` only under
 * the working directory's `docs`, `//etc/**` under the file system's root, `~/.ssh/**` under home.
 *
 * A file is checked both as named and as it really is (symbolic links resolved), so a link to
 * `.env` is `.env`. A directory counts when a rule covers everything in it: grep over `.harness`
 * reads the settings as surely as read_file of `.harness/settings.json` does.
 */
import { lstatSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, isAbsolute, join, relative } from "node:path";
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
      if (matcher.ignores(rel) || (wide && coversANameIn(matcher, rel))) return true;
    }
  }
  return false;
}

/**
 * Whether the rule covers a name inside directory `rel`: one without a dot, or one with (so
 * `.harness/*.*`, the harness's settings, covers `.harness`: grep -r over it reads them).
 */
function coversANameIn(matcher: Ignore, rel: string): boolean {
  return matcher.ignores(`${rel}/\u0000any`) || matcher.ignores(`${rel}/\u0000any.\u0000any`);
}

/** The directories a rule's pattern is relative to. */
function rootsOf(root: PathRoot, cwd: string): string[] {
  switch (root) {
    case "filesystem":
      return ["/"];
    case "home":
      return [homedir()];
    case "cwd":
      return workingDirectories(cwd);
  }
}

const realCwds = new Map<string, string>();

/** The working directory as named and, when a link leads to it, as it really is. */
export function workingDirectories(cwd: string): string[] {
  let real = realCwds.get(cwd);
  if (real === undefined) {
    real = pathForms(cwd, "/").at(-1) ?? cwd;
    realCwds.set(cwd, real);
  }
  return real === cwd ? [cwd] : [cwd, real];
}

/**
 * A path as named (absolute) and as it really is: symbolic links resolved in the part of it that
 * exists, so a file not written yet inside a linked directory still resolves to where it would go.
 */
export function pathForms(path: string, base: string): string[] {
  const named = isAbsolute(path) ? path : join(base, path);
  // the nearest part that exists (a missing file is common: most words are not files)
  let existing = named;
  const missing: string[] = [];
  while (!exists(existing)) {
    const parent = dirname(existing);
    if (parent === existing) return [named];
    missing.unshift(basename(existing));
    existing = parent;
  }
  let real: string;
  try {
    real = join(realDirectory(existing), ...missing);
  } catch {
    return [named]; // a dangling link: nothing there to read
  }
  return real === named ? [named] : [named, real];
}

/** True when something is at `path`; a name too long, or a file used as a directory, is nothing. */
function exists(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}

const realDirectories = new Map<string, string>();

/** realpath, remembered for the directories words are most often relative to. */
function realDirectory(path: string): string {
  const known = realDirectories.get(path);
  if (known !== undefined) return known;
  const real = realpathSync.native(path);
  // only directories met again and again are kept: the working directory and its parents
  if (realDirectories.size < 64 && lstatSync(path).isDirectory()) realDirectories.set(path, real);
  return real;
}

/**
 * True when every form of a file (as named, as it really is) is inside the working directory and
 * not under its `.git`, which acceptEdits leaves alone: a link inside pointing outside is outside.
 */
export function isEditableInside(forms: readonly string[], cwd: string): boolean {
  const roots = workingDirectories(cwd);
  return forms.every((form) =>
    roots.some((root) => {
      const rel = relative(root, form);
      return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) && rel.split(/[\\/]/)[0] !== ".git";
    }),
  );
}
