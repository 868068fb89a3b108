/**
 * The files a bash line names, as the permission check reads them: each word a command is given
 * (and each redirection's target) resolved against the directories it may be relative to, a glob
 * expanded to the files it matches now. `decide.ts` checks every one against the Read rules.
 */
import { isAbsolute } from "node:path";
import { expandGlob } from "../rules/expand-glob.ts";
import { pathForms } from "../rules/match-path.ts";
import type { ShellWord } from "./read-word.ts";

/** One file a word may name. */
export interface ResolvedPath {
  /** The file as named and as it really is. */
  forms: string[];
  /** The absolute path as named. */
  path: string;
  /** How to show it in a reason. */
  shown: string;
}

/**
 * The files a command's words may name: every word after the program that is not a flag, the value
 * of `--flag=value`, the part after the last `:` (`HEAD:.env`), and the files a glob expands to.
 */
export function namedFiles(layers: ShellWord[][], bases: string[], tooWide: string[]): ResolvedPath[] {
  const files: ResolvedPath[] = [];
  const seen = new Set<string>();
  for (const layer of layers) {
    for (const word of layer.slice(1)) {
      if (seen.has(word.source)) continue;
      seen.add(word.source);
      for (const path of expandWord(word, bases, tooWide)) files.push(path);
    }
  }
  return files;
}

/** The files one word may stand for, from each directory it may be relative to; `tooWide` collects globs not expanded. */
export function expandWord(word: ShellWord, bases: string[], tooWide: string[], argument = true): ResolvedPath[] {
  const candidates = new Set<string>();
  if (word.value !== null && word.value !== "") {
    const value = word.value;
    // a redirection's word is a file whatever it looks like; an argument starting with - is a flag
    if (!argument || !value.startsWith("-")) candidates.add(value);
    const flagValue = /^--?[^=]+=(.+)$/s.exec(value)?.[1];
    if (flagValue) candidates.add(flagValue);
    const afterColon = value.includes("://") ? undefined : value.slice(value.lastIndexOf(":") + 1);
    if (afterColon && afterColon !== value) candidates.add(afterColon);
  }
  const resolved: ResolvedPath[] = [];
  for (const base of isRelativeWord(word) ? bases : bases.slice(0, 1)) {
    for (const candidate of candidates) {
      const forms = pathForms(candidate, base);
      resolved.push({ forms, path: forms[0], shown: candidate });
    }
    if (word.glob !== null) {
      const matches = expandGlob(word.glob, base);
      if (matches === null) tooWide.push(word.source);
      for (const match of matches ?? []) {
        resolved.push({ forms: pathForms(match, base), path: match, shown: `${match} (from ${word.source})` });
      }
    }
  }
  return resolved;
}

function isRelativeWord(word: ShellWord): boolean {
  return !isAbsolute(word.value ?? word.glob ?? "");
}
