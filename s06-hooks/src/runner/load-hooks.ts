/**
 * Where hooks come from: the `hooks` key of the same settings files as s05's permission rules,
 * in Claude Code's shape:
 *
 *   {"hooks": {"PreToolUse": [{"matcher": "bash", "hooks": [{"type": "command", "command": "...", "timeout": 30}]}]}}
 *
 * `<cwd>/.harness/settings.json` is committed with the project: anyone who clones it gets its
 * hooks, so they are `project` hooks and run only once trusted (s05's project-trust.ts, in one
 * question with the project's permissions). `<cwd>/.harness/settings.local.json` is the user's own
 * (`local`) and runs, unless it came with the clone (s05's `shippedWithProject`: git tracks it, or
 * a link leads out of `.harness` to it): then its hooks are the project's and need trust too.
 *
 * A file that is not JSON, an unknown event, a hook that is not a command: each is one line in
 * `problems` and is skipped; everything else still loads. Other keys (s05's `permissions`) are
 * not this file's business.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { loadZod, readProjectFile, type Zod } from "@harness/s02-tool-dispatch";
import { LOCAL_SETTINGS, PROJECT_SETTINGS, shippedWithProject } from "@harness/s05-permissions";
import type { z } from "zod";
import { HOOK_EVENTS, type HookEventName } from "./hook-input.ts";
import { matcherProblem } from "./match-hooks.ts";

/** Seconds a hook may run before its process group is killed, unless it sets `timeout` (as in Claude Code). */
export const DEFAULT_HOOK_TIMEOUT_SECONDS = 60;
/** The longest `timeout` accepted, in seconds: a day (longer ones overflow Node's timers). */
export const MAX_HOOK_TIMEOUT_SECONDS = 86_400;

/** `project` hooks came with the repository and need the user's trust; `local` hooks are the user's own. */
export type HookSource = "project" | "local";

/** One command to run at one event, as configured. */
export interface HookCommand {
  event: HookEventName;
  /** The group's matcher as written; "" when absent. */
  matcher: string;
  /** Run with `bash -c` in the working directory. */
  command: string;
  /** Milliseconds before its process group is killed. */
  timeoutMs: number;
  source: HookSource;
  /** The settings file it came from, relative to the working directory. */
  file: string;
}

/** Every hook of a working directory, and what could not be loaded. */
export interface LoadedHooks {
  /** In config order: settings.json first, then settings.local.json; in each, as written. */
  hooks: HookCommand[];
  /** One line per thing skipped, naming the file and the place in it. */
  problems: string[];
  /** The `hooks` values of the files whose hooks need trust, as written, and why each is the project's: what trust is keyed on. */
  projectDefinitions: { file: string; shipped: string; hooks: unknown }[];
}

/** The shapes of a hook group and of one command hook, built the first time a file has hooks (s02's `loadZod`). */
function hookShapesWith(z: Zod) {
  const commandHook = z.object({
    type: z.literal("command"),
    command: z.string().trim().min(1, "the command is empty"),
    timeout: z
      .number()
      .positive("the timeout must be a positive number of seconds")
      .max(MAX_HOOK_TIMEOUT_SECONDS, `the timeout must be at most ${MAX_HOOK_TIMEOUT_SECONDS} seconds`)
      .optional(),
  });
  const hookGroup = z.object({ matcher: z.string().optional(), hooks: z.array(z.unknown()) });
  return { commandHook, hookGroup };
}
let hookShapes: ReturnType<typeof hookShapesWith> | undefined;

/**
 * Read the hooks configured for `cwd`, for the events the harness fires (`events`; a hook for any
 * other is a problem). Contract: never throws; a missing file is no hooks.
 */
export function loadHooks(cwd: string, events: readonly HookEventName[] = HOOK_EVENTS): LoadedHooks {
  const loaded: LoadedHooks = { hooks: [], problems: [], projectDefinitions: [] };
  for (const file of [PROJECT_SETTINGS, LOCAL_SETTINGS]) {
    const value = readHooksValue(cwd, file, loaded.problems);
    if (value === undefined) continue;
    const shipped = file === PROJECT_SETTINGS ? "the project's" : shippedWithProject(cwd, file);
    const hooks = readHooks(value, file, shipped === undefined ? "local" : "project", events, loaded.problems);
    loaded.hooks.push(...hooks);
    if (shipped !== undefined && hooks.length > 0) loaded.projectDefinitions.push({ file, shipped, hooks: value });
  }
  return loaded;
}

/** The file's `hooks` value, or undefined when it has none or cannot be read (a problem then). */
function readHooksValue(cwd: string, file: string, problems: string[]): unknown {
  const path = join(cwd, file);
  if (!existsSync(path)) return undefined;
  let settings: unknown;
  try {
    settings = JSON.parse(readProjectFile(path)); // a regular file of at most 1 MiB, never a pipe
  } catch (error) {
    problems.push(`${file}: not read (${(error as Error).message}); its hooks are skipped`);
    return undefined;
  }
  if (settings === null || typeof settings !== "object" || Array.isArray(settings)) {
    problems.push(`${file}: not a JSON object; its hooks are skipped`);
    return undefined;
  }
  return (settings as { hooks?: unknown }).hooks;
}

function readHooks(
  value: unknown,
  file: string,
  source: HookSource,
  events: readonly HookEventName[],
  problems: string[],
): HookCommand[] {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    problems.push(`${file}: "hooks" is not an object of events; skipped`);
    return [];
  }
  const hooks: HookCommand[] = [];
  hookShapes ??= hookShapesWith(loadZod());
  const { commandHook, hookGroup } = hookShapes;
  for (const [event, groups] of Object.entries(value)) {
    if (!events.includes(event as HookEventName)) {
      problems.push(`${file}: hooks.${event}: not an event this harness fires (${events.join(", ")}); skipped`);
      continue;
    }
    if (!Array.isArray(groups)) {
      problems.push(`${file}: hooks.${event}: not a list of hook groups; skipped`);
      continue;
    }
    groups.forEach((group, g) => {
      const where = `${file}: hooks.${event}[${g}]`;
      const parsedGroup = hookGroup.safeParse(group);
      if (!parsedGroup.success) {
        problems.push(`${where}: ${describeIssues(parsedGroup.error)}; skipped`);
        return;
      }
      const matcher = parsedGroup.data.matcher ?? "";
      const badMatcher = matcherProblem(matcher);
      if (badMatcher) {
        problems.push(`${where}: ${badMatcher}; skipped`);
        return;
      }
      parsedGroup.data.hooks.forEach((entry, h) => {
        const parsed = commandHook.safeParse(entry);
        if (!parsed.success) {
          problems.push(`${where}.hooks[${h}]: ${describeEntryProblem(entry, parsed.error)}; skipped`);
          return;
        }
        const { command, timeout = DEFAULT_HOOK_TIMEOUT_SECONDS } = parsed.data;
        hooks.push({ event: event as HookEventName, matcher, command, timeoutMs: timeout * 1000, source, file });
      });
    });
  }
  return hooks;
}

function describeEntryProblem(entry: unknown, error: z.ZodError): string {
  const type = (entry as { type?: unknown } | null)?.type;
  if (typeof type === "string" && type !== "command") {
    return `type ${JSON.stringify(type)} is not supported (only "command" hooks run here)`;
  }
  return describeIssues(error);
}

function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => (issue.path.length ? `${issue.path.join(".")}: ` : "") + issue.message).join("; ");
}
