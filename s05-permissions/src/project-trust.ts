/**
 * One trust rule for everything a project ships that widens what runs. A cloned repository's
 * `.harness/settings.json` could allow any command, switch the mode to acceptEdits, or (s06) run
 * a hook the moment the harness starts; a `settings.local.json` it commits or links to could do
 * the same. So what it ships that widens what runs applies only once the user has trusted it:
 * asked at a terminal, once per content, and kept where the repository cannot write,
 * `$HARNESS_HOME/trusted-projects.json` (default `~/.harness`), keyed by the project's real path
 * and, for each kind of thing (s05's `permissions`, s06's `hooks`; later chapters add theirs), a
 * hash of exactly those definitions. Change one character of one and the user is asked again.
 * Without a terminal nothing untrusted applies, and one line says what was left out. What only
 * narrows (a deny rule, an ask rule) needs no trust: it always applies.
 *
 * The asking is the CLI's (a terminal prompt); this file only needs an `ask` function.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, realpathSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** What one mechanism found in the files a project ships that would widen what runs. */
export interface Shipped {
  /** What kind of thing it is (`permissions`, `hooks`): the trust file keeps one hash per kind. */
  kind: string;
  /** Exactly what is trusted: any change to it changes the hash. */
  definitions: unknown;
  /** Each thing on one line, for the question: `allow Bash(touch:*)   (.harness/settings.json)`. */
  lines: string[];
  /** All of it in a few words, for the line said when it does not apply: `1 allow rule in .harness/settings.json`. */
  summary: string;
}

/** The user's answer to "apply them?": this once, never, or from now on. */
export type TrustAnswer = "yes" | "no" | "always";

/** Where trust is kept. */
export interface TrustOptions {
  /** The harness's own directory (default: `$HARNESS_HOME`, else `~/.harness`). */
  home?: string;
}

/** How decideTrust asks. */
export interface DecideTrustOptions extends TrustOptions {
  /** Asks the user a question at a terminal; absent when there is none. */
  ask?: (question: string) => Promise<TrustAnswer>;
}

/** What applies: the kinds trusted (before, or now), and one line for the user when something does not. */
export interface TrustDecision {
  trusted: string[];
  notice?: string;
}

/** The trust file's name inside the harness home. */
export const TRUST_FILE = "trusted-projects.json";

/** The harness's own directory: `$HARNESS_HOME`, else `~/.harness`. */
export function harnessHome(): string {
  return process.env.HARNESS_HOME || join(homedir(), ".harness");
}

/** A hash of exactly the definitions given: any edit to them changes it. */
export function trustHash(shipped: Shipped): string {
  return createHash("sha256").update(canonicalJson(shipped.definitions)).digest("hex");
}

/**
 * Which of `shipped` the user trusts for the project in `cwd` as they are now.
 * Contract: never throws; an unreadable trust file trusts nothing.
 */
export function trustedKinds(cwd: string, shipped: readonly Shipped[], options: TrustOptions = {}): string[] {
  const stored = readTrust(options)[projectKey(cwd)] ?? {};
  return shipped.filter((one) => stored[one.kind] === trustHash(one)).map((one) => one.kind);
}

/** Trust `shipped` for the project in `cwd` as they are now, until they change (other kinds keep their trust). */
export function trustProject(cwd: string, shipped: readonly Shipped[], options: TrustOptions = {}): void {
  const home = options.home ?? harnessHome();
  const all = readTrust(options);
  const project = projectKey(cwd);
  all[project] = { ...all[project], ...Object.fromEntries(shipped.map((one) => [one.kind, trustHash(one)])) };
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const file = join(home, TRUST_FILE);
  // write a whole new file, then rename: a crash never leaves half a trust file behind
  const partial = `${file}.${process.pid}.tmp`;
  writeFileSync(partial, `${JSON.stringify({ projects: all }, null, 2)}\n`, { mode: 0o600 });
  renameSync(partial, file);
}

/**
 * Decide, once per session, what of `shipped` applies: what was trusted as it is applies; the
 * rest only if the user says yes (or always, which stores the trust). Without `ask`, the rest
 * does not apply, and `notice` says so in one line.
 * Contract: never rejects; an `ask` that fails counts as "no"; with nothing shipped, nothing is asked.
 */
export async function decideTrust(
  cwd: string,
  shipped: readonly Shipped[],
  options: DecideTrustOptions = {},
): Promise<TrustDecision> {
  const present = shipped.filter((one) => one.lines.length > 0);
  const trusted = trustedKinds(cwd, present, options);
  const pending = present.filter((one) => !trusted.includes(one.kind));
  if (pending.length === 0) return { trusted };
  const stored = readTrust(options)[projectKey(cwd)] ?? {};
  const why = pending.some((one) => stored[one.kind] !== undefined)
    ? "changed since you trusted them"
    : "not trusted yet";
  const what = pending.map((one) => one.summary).join("; ");
  if (!options.ask) {
    return {
      trusted,
      notice: `project settings not applied (${why}): ${what}; start the harness at a terminal to review them`,
    };
  }
  const answer = await options.ask(trustQuestion(pending, why)).catch((): TrustAnswer => "no");
  if (answer === "no") return { trusted, notice: `project settings not applied (you said no): ${what}` };
  if (answer === "always") trustProject(cwd, pending, options);
  return { trusted: [...trusted, ...pending.map((one) => one.kind)] };
}

function trustQuestion(pending: readonly Shipped[], why: string): string {
  return [
    `This project ships settings that let more run, ${why}. They apply as you, on this machine:`,
    ...pending.flatMap((one) => one.lines.map((line) => `  ${line}`)),
    "Apply them? yes (this session) / no / always (until they change)",
  ].join("\n");
}

function projectKey(cwd: string): string {
  try {
    return realpathSync(cwd);
  } catch {
    return resolve(cwd);
  }
}

/** The trust file: each project's real path, and a hash per kind it trusts. */
function readTrust(options: TrustOptions): Record<string, Record<string, string>> {
  const file = join(options.home ?? harnessHome(), TRUST_FILE);
  if (!existsSync(file)) return {};
  try {
    const projects = (JSON.parse(readFileSync(file, "utf8")) as { projects?: unknown }).projects;
    if (!isObject(projects)) return {};
    const kept: Record<string, Record<string, string>> = {};
    for (const [project, kinds] of Object.entries(projects)) {
      if (!isObject(kinds)) continue;
      kept[project] = Object.fromEntries(
        Object.entries(kinds).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
      );
    }
    return kept;
  } catch {
    return {}; // unreadable: trust nothing, ask again
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** JSON with every object's keys sorted, so the same definitions always hash the same. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, v]) => `${JSON.stringify(key)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
