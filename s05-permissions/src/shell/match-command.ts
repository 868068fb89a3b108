/**
 * Whether a Bash rule names a command. The command is its words one space apart (quotes removed,
 * as the program receives them), so `Bash(git diff:*)` matches `git diff`, `git diff HEAD` and
 * `"git" diff`, but not `git difftool`.
 *
 * A rule names a program however it is reached: `Bash(rm:*)` names `/bin/rm` and `/usr/bin/rm`.
 * An allow rule is stricter there: it names a program by path only in the system's directories,
 * so `Bash(git status)` does not allow a `./git` the model wrote itself.
 *
 * Deny and ask rules are also matched loosely, flag by flag, because flags can be reordered:
 * `Bash(rm -rf:*)` denies `rm -fr x`, `rm -r -f x` and `rm -rfv x` (Claude Code's prefix match
 * misses those, issue #18613). Loosely means: the same program, at least the rule's short flags
 * in any grouping, its long flags anywhere, and its other words first among the command's other
 * words. What a program takes as a synonym (`--recursive` for `-r`) no rule can know.
 *
 * Nor do options before a subcommand hide it from a deny or ask rule: `Bash(git push:*)` denies
 * `git -C . push`, `git -c k=v push`, `git --no-pager push`, `git --git-dir=.git push`, and so for
 * every program: `npm --prefix . publish`, `docker -H host rm`, `kubectl -n ns delete`. An option
 * may or may not take the next word as its value (`-C .` does, `--no-pager` does not); both
 * readings are tried, so no table of each program's options is needed. Claude Code's prefix match
 * misses all of these. An allow rule still matches only the command as written: `Bash(git status)`
 * does not allow `git -c core.fsmonitor='rm -rf x' status`. What stays hidden: a subcommand reached
 * by another name (`git config alias.p push` then `git p`, `docker container rm` for `docker rm`).
 */
import type { RuleSpecifier } from "../rules/parse-rule.ts";
import { programName } from "./unwrap-command.ts";

/** Where a program reached by its path is still the program an allow rule names. */
const SYSTEM_DIRECTORY = /^\/(?:usr\/(?:local\/)?)?s?bin\/[^/]+$/;

/** A Bash rule's specifier, when it has one. */
type CommandSpecifier = Extract<RuleSpecifier, { kind: "command" }>;

/**
 * True when `specifier` names the command `words` (their values; a word computed at run time is
 * passed as written). `loose` is for deny and ask rules (flags in any order and grouping).
 */
export function commandMatches(specifier: CommandSpecifier, words: readonly string[], loose: boolean): boolean {
  if (matchesAsWritten(specifier, words, loose)) return true;
  // deny and ask rules: options before the subcommand do not hide it
  return loose && withoutLeadingOptions(words).some((form) => matchesAsWritten(specifier, form, loose));
}

/**
 * The command with the options before its subcommand taken away, each way they can be read:
 * `git -C . push` gives `git . push` (-C took no value) and `git push` (-C took `.`).
 */
function withoutLeadingOptions(words: readonly string[]): string[][] {
  const [program, ...rest] = words;
  const starts = new Set<number>();
  const queue = [0];
  const seen = new Set(queue);
  const visit = (i: number) => {
    if (i < rest.length && !seen.has(i)) {
      seen.add(i);
      queue.push(i);
    }
  };
  while (queue.length > 0) {
    const i = queue.shift() as number;
    const word = rest[i];
    if (word === "--") {
      if (i + 1 < rest.length) starts.add(i + 1);
    } else if (/^[-+]./.test(word)) {
      visit(i + 1); // an option alone...
      if (!word.includes("=") && !/^[-+]/.test(rest[i + 1] ?? "-")) visit(i + 2); // ...or with its value
    } else if (i > 0) {
      starts.add(i); // a subcommand, after options
    }
  }
  return [...starts].map((start) => [program, ...rest.slice(start)]);
}

function matchesAsWritten(specifier: CommandSpecifier, words: readonly string[], loose: boolean): boolean {
  const named = asNamed(words, specifier.pattern, loose);
  if (!named) return false;
  const text = named.join(" ");
  switch (specifier.match) {
    case "exact":
      return text === specifier.pattern || (loose && flagsMatch(specifier.pattern.split(" "), named, false));
    case "prefix":
      return (
        text === specifier.pattern ||
        text.startsWith(`${specifier.pattern} `) ||
        (loose && flagsMatch(specifier.pattern.split(" "), named, true))
      );
    case "wildcard":
      return wildcard(specifier.pattern).test(text);
  }
}

/** The words with the program as a rule names it, or null when an allow rule cannot name it. */
function asNamed(words: readonly string[], pattern: string, loose: boolean): string[] | null {
  const [program, ...rest] = words;
  if (program === undefined) return null;
  const ruleProgram = pattern.split(" ")[0];
  if (ruleProgram.includes("/") || !program.includes("/")) return [program, ...rest];
  if (loose || SYSTEM_DIRECTORY.test(program)) return [programName(program), ...rest];
  return null;
}

/** The rule's flags among the command's, its other words first among the command's other words. */
function flagsMatch(rule: string[], command: string[], prefix: boolean): boolean {
  if (rule[0] !== command[0]) return false;
  const want = sortWords(rule.slice(1));
  const have = sortWords(command.slice(1));
  for (const flag of want.short) if (!have.short.has(flag)) return false;
  for (const flag of want.long) if (!have.long.has(flag)) return false;
  if (prefix ? have.other.length < want.other.length : have.other.length !== want.other.length) return false;
  return want.other.every((word, i) => have.other[i] === word);
}

function sortWords(words: string[]): { short: Set<string>; long: Set<string>; other: string[] } {
  const sorted = { short: new Set<string>(), long: new Set<string>(), other: [] as string[] };
  for (const word of words) {
    if (/^-[A-Za-z0-9]+$/.test(word)) for (const flag of word.slice(1)) sorted.short.add(flag);
    else if (/^--[^=]+/.test(word)) sorted.long.add(word);
    else sorted.other.push(word);
  }
  return sorted;
}

const wildcards = new Map<string, RegExp>();

/** `*` is any run of characters; a final ` *` may match nothing (`Bash(ls *)` matches `ls`). */
function wildcard(pattern: string): RegExp {
  let regex = wildcards.get(pattern);
  if (!regex) {
    const optionalTail = pattern.endsWith(" *");
    const body = optionalTail ? pattern.slice(0, -2) : pattern;
    const source = body
      .split("*")
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*");
    regex = new RegExp(`^${source}${optionalTail ? "(?: .*)?" : ""}$`, "s");
    wildcards.set(pattern, regex);
  }
  return regex;
}
