/**
 * A glob word, expanded the way bash would expand it before the program sees it: `cat .e*` reads
 * `.env` when there is one. Matching is done against the disk (tinyglobby), one directory level per
 * `*` as in bash without `globstar` (`**` is `*` there), dotfiles only when the pattern names the dot.
 */
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";
import { globSync } from "tinyglobby";

/** At most this many files of one word are checked: a word that expands to more is rare in a command line. */
const MAX_MATCHES = 1000;

/**
 * The files `pattern` expands to from `base`, as absolute paths; none when nothing matches; `null`
 * when the pattern is too wide to expand here (more than two levels of wildcards, or two from the
 * file system's root, where `/proc` alone holds thousands of entries): the caller cannot see it.
 */
export function expandGlob(pattern: string, base: string): string[] | null {
  const home = pattern === "~" || pattern.startsWith("~/");
  const relativePattern = (home ? pattern.slice(2) : pattern).replace(/\*\*+/g, "*");
  const segments = relativePattern.split("/");
  // the directories before the first glob character are where the search starts
  const fixed: string[] = [];
  while (segments.length > 1 && !/[*?[{\\]/.test(segments[0])) fixed.push(segments.shift() ?? "");
  let start = home ? homedir() : base;
  if (!home && isAbsolute(relativePattern)) start = "/";
  start = join(start, ...fixed);
  const rest = segments.join("/");
  if (rest === "") return [];
  const wild = segments.filter((segment) => /[*?[{]/.test(segment)).length;
  if (wild > 2 || (wild === 2 && start === "/")) return null;
  try {
    return globSync(rest, {
      cwd: start,
      absolute: true,
      dot: false,
      onlyFiles: false,
      expandDirectories: false,
      followSymbolicLinks: false,
      caseSensitiveMatch: true,
    }).slice(0, MAX_MATCHES);
  } catch {
    return []; // a directory that cannot be read expands to nothing, as in bash
  }
}
