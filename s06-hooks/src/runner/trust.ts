/**
 * A cloned repository's `.harness/settings.json` could run any command on the reader's machine
 * the moment the harness starts (a SessionStart hook). So the project's hooks run only once the
 * user has trusted them, and the trust is kept where the repository cannot write it: in
 * `$HARNESS_HOME/trusted-hooks.json` (default `~/.harness`), keyed by the project's real path
 * and a hash of exactly those hook definitions. Change one character of one hook and the hash
 * changes: the user is asked again.
 *
 * The asking is the CLI's (a terminal prompt); this file only needs an `ask` function. Without a
 * terminal there is no `ask`, and untrusted hooks do not run.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, realpathSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import type { HookCommand, LoadedHooks } from "./load-hooks.ts";

/** Where trust is kept. */
export interface TrustOptions {
  /** The harness's own directory (default: `$HARNESS_HOME`, else `~/.harness`). */
  home?: string;
}

/** "none": the project has no hooks to trust; "changed": trusted once, edited since. */
export type TrustStatus = "none" | "trusted" | "untrusted" | "changed";

/** Whether the project's hooks may run. */
export interface TrustState {
  status: TrustStatus;
  /** The project's real path: the key of its trust. */
  project: string;
  /** The hash of its hook definitions ("" when it has none). */
  hash: string;
  /** The hooks that need trust (from settings.json, or a settings.local.json git tracks). */
  hooks: HookCommand[];
}

/** The user's answer to "run these hooks?": this once, never, or from now on. */
export type TrustAnswer = "yes" | "no" | "always";

/** The trust file's name inside the harness home. */
export const TRUST_FILE = "trusted-hooks.json";

/** The harness's own directory: `$HARNESS_HOME`, else `~/.harness`. */
export function harnessHome(): string {
  return process.env.HARNESS_HOME || join(homedir(), ".harness");
}

/** A hash of exactly the definitions that need trust: any edit to them changes it. */
export function hooksHash(loaded: LoadedHooks): string {
  return createHash("sha256").update(canonicalJson(loaded.projectDefinitions)).digest("hex");
}

/** Whether the project's hooks in `cwd` are trusted. Contract: never throws; an unreadable trust file trusts nothing. */
export function trustState(cwd: string, loaded: LoadedHooks, options: TrustOptions = {}): TrustState {
  const project = projectKey(cwd);
  const hooks = loaded.hooks.filter((hook) => hook.source === "project");
  if (hooks.length === 0) return { status: "none", project, hash: "", hooks };
  const hash = hooksHash(loaded);
  const stored = readTrust(options)[project];
  const status = stored === hash ? "trusted" : stored === undefined ? "untrusted" : "changed";
  return { status, project, hash, hooks };
}

/** Trust the project's hooks in `cwd` as they are now, until they change. */
export function trustHooks(cwd: string, loaded: LoadedHooks, options: TrustOptions = {}): void {
  const home = options.home ?? harnessHome();
  const trusted = { ...readTrust(options), [projectKey(cwd)]: hooksHash(loaded) };
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const file = join(home, TRUST_FILE);
  // write a whole new file, then rename: a crash never leaves half a trust file behind
  const partial = `${file}.${process.pid}.tmp`;
  writeFileSync(partial, `${JSON.stringify({ projects: trusted }, null, 2)}\n`, { mode: 0o600 });
  renameSync(partial, file);
}

/** How decideTrust asks. */
export interface DecideTrustOptions extends TrustOptions {
  /** Asks the user a question at a terminal; absent when there is none. */
  ask?: (question: string) => Promise<TrustAnswer>;
}

/**
 * Decide, once per session, whether the project's hooks run: trusted ones do; untrusted ones run
 * only if the user says yes (or always, which stores the trust). Without `ask`, untrusted hooks
 * do not run, and `notice` says so in one line.
 * Contract: never rejects; an `ask` that fails counts as "no".
 */
export async function decideTrust(
  cwd: string,
  loaded: LoadedHooks,
  options: DecideTrustOptions = {},
): Promise<{ runProjectHooks: boolean; notice?: string }> {
  const state = trustState(cwd, loaded, options);
  if (state.status === "none" || state.status === "trusted") return { runProjectHooks: true };
  const count = `${state.hooks.length} project hook${state.hooks.length === 1 ? "" : "s"}`;
  const why = state.status === "changed" ? "changed since you trusted them" : "not trusted yet";
  if (!options.ask) {
    return {
      runProjectHooks: false,
      notice: `hooks: ${count} in ${files(state)} not run: ${why} (start the harness at a terminal to review them)`,
    };
  }
  const answer = await options.ask(trustQuestion(state, why)).catch((): TrustAnswer => "no");
  if (answer === "always") trustHooks(cwd, loaded, options);
  if (answer === "no") return { runProjectHooks: false, notice: `hooks: ${count} not run (you said no)` };
  return { runProjectHooks: true };
}

function files(state: TrustState): string {
  return [...new Set(state.hooks.map((hook) => hook.file))].join(", ");
}

function trustQuestion(state: TrustState, why: string): string {
  const lines = state.hooks.map(
    (hook) => `  ${hook.event}${hook.matcher ? ` [${hook.matcher}]` : ""}: ${hook.command}   (${hook.file})`,
  );
  return [
    `This project's settings define hooks, ${why}. They run as you, on this machine:`,
    ...lines,
    "Run them? yes (this session) / no / always (until they change)",
  ].join("\n");
}

function projectKey(cwd: string): string {
  try {
    return realpathSync(cwd);
  } catch {
    return resolve(cwd);
  }
}

function readTrust(options: TrustOptions): Record<string, string> {
  const file = join(options.home ?? harnessHome(), TRUST_FILE);
  if (!existsSync(file)) return {};
  try {
    const projects = (JSON.parse(readFileSync(file, "utf8")) as { projects?: unknown }).projects;
    if (projects === null || typeof projects !== "object" || Array.isArray(projects)) return {};
    return Object.fromEntries(Object.entries(projects).filter(([, hash]) => typeof hash === "string"));
  } catch {
    return {}; // unreadable: trust nothing, ask again
  }
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
