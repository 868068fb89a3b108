/**
 * A project's definitions came with the clone, as its hooks did. Most only narrow what a child
 * has; one that gives its children the task tool lets them start children of their own, and so
 * spend on the reader's account more than the reader asked for. Such a definition follows s06's
 * trust rule: it keeps `task` only once the user trusts it (asked at a terminal: yes, no, always),
 * the trust kept where the repository cannot write it, `$HARNESS_HOME/trusted-agents.json`, keyed
 * by the project's real path and a hash of exactly those definitions: an edit asks again. Without
 * a terminal, or told no, it loads without `task`, and one line says so.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, realpathSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { TrustAnswer } from "@harness/s06-hooks";
import { type AgentDefinition, TASK } from "./agent-definitions.ts";

/** The file the trust is kept in, in the harness's own directory. */
export const AGENTS_TRUST_FILE = "trusted-agents.json";

/** How the trust is decided. */
export interface TrustDefinitionsOptions {
  /** The harness's own directory (s06's `harnessHome()`). */
  home: string;
  /** Asks the user at a terminal; absent without one. */
  ask?: (question: string) => Promise<TrustAnswer>;
}

/**
 * The definitions as they may run: a project's that gives its children `task` keeps it only when
 * trusted; `notice` says what was narrowed. Contract: never rejects; an `ask` that fails is a no.
 */
export async function trustDefinitions(
  cwd: string,
  definitions: readonly AgentDefinition[],
  options: TrustDefinitionsOptions,
): Promise<{ definitions: AgentDefinition[]; notice?: string }> {
  const widening = definitions.filter((d) => d.source === "project" && d.tools?.includes(TASK));
  if (widening.length === 0) return { definitions: [...definitions] };
  const project = realPath(cwd);
  const hash = createHash("sha256").update(JSON.stringify(widening)).digest("hex");
  const trusted = readTrust(options.home);
  if (trusted[project] === hash) return { definitions: [...definitions] };
  const names = widening.map((d) => `${d.name} (${d.file})`).join(", ");
  const why = trusted[project] === undefined ? "not trusted yet" : "changed since you trusted them";
  const question = `This project's agent definitions let their subagents start subagents of their own, ${why}: ${names}. Allow it? yes (this session) / no / always (until they change)`;
  const answer = options.ask ? await options.ask(question).catch((): TrustAnswer => "no") : "no";
  if (answer === "always") {
    mkdirSync(options.home, { recursive: true, mode: 0o700 });
    const file = join(options.home, AGENTS_TRUST_FILE);
    const partial = `${file}.${process.pid}.tmp`; // a whole new file, then renamed: never half a trust file
    writeFileSync(partial, `${JSON.stringify({ projects: { ...trusted, [project]: hash } }, null, 2)}\n`, {
      mode: 0o600,
    });
    renameSync(partial, file);
  }
  if (answer !== "no") return { definitions: [...definitions] };
  const narrowed = definitions.map((d) =>
    widening.includes(d) ? { ...d, tools: d.tools?.filter((tool) => tool !== TASK) } : d,
  );
  const how = options.ask ? "you said no" : "start the harness at a terminal to review them";
  return { definitions: narrowed, notice: `agents: ${names} run without task (${why}; ${how})` };
}

function realPath(cwd: string): string {
  try {
    return realpathSync(cwd);
  } catch {
    return cwd;
  }
}

function readTrust(home: string): Record<string, string> {
  const file = join(home, AGENTS_TRUST_FILE);
  if (!existsSync(file)) return {};
  try {
    const projects = (JSON.parse(readFileSync(file, "utf8")) as { projects?: unknown }).projects;
    if (projects === null || typeof projects !== "object" || Array.isArray(projects)) return {};
    return Object.fromEntries(Object.entries(projects).filter(([, hash]) => typeof hash === "string"));
  } catch {
    return {}; // unreadable: trust nothing, ask again
  }
}
