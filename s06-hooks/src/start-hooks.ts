/**
 * A session's hooks, started once before its first prompt: read from the settings files; what the
 * project ships (its hooks, and the permissions s05 read) trusted or not, in one question at a
 * terminal, as s05's trust rule says; and SessionStart run, whose output the model reads with the
 * first prompt.
 */
import type { CallRunner } from "@harness/s02-tool-dispatch";
import {
  type AskPermission,
  decideTrust,
  type PermissionMode,
  type PermissionSettings,
  type PermissionsRead,
  permissionGate,
  permissionsAfter,
  type Shipped,
  type TrustAnswer,
} from "@harness/s05-permissions";
import { hookGate } from "./hook-gate.ts";
import { type LoopHooks, loopHooks } from "./loop-hooks.ts";
import { type HookEventName, type HookSession, sessionStartInput } from "./runner/hook-input.ts";
import { type LoadedHooks, loadHooks } from "./runner/load-hooks.ts";
import { runHooks } from "./runner/run-hooks.ts";

/** What a session's hooks start with. */
export interface StartedHooks {
  /** Every hook that loaded (the project's run only when `runProjectHooks`). */
  hooks: LoadedHooks["hooks"];
  session: HookSession;
  /** Whether the project's hooks may run: the user trusts them. */
  runProjectHooks: boolean;
  /** What SessionStart hooks printed for the model: sent with the first prompt sent. */
  context: string[];
  /** The rules in force, what the project ships in them applied only when trusted. */
  settings: PermissionSettings;
  mode: PermissionMode;
  /** The kinds of what the project ships that the user trusts (`permissions`, `hooks`, and `also`'s). */
  trusted: string[];
}

/** How a session's hooks start. */
export interface StartHooksOptions {
  session: HookSession;
  /** The rules and the mode as s05 read them: what the project ships there is trusted with its hooks, in one question. */
  permissions: PermissionsRead;
  /** The transcript a resumed session goes on from (s07): SessionStart is told `source: "resume"`. */
  transcriptPath?: string;
  /** Asks the user at a terminal whether to trust what the project ships; absent without one. */
  ask?: (question: string, choices: readonly TrustAnswer[]) => Promise<TrustAnswer>;
  /** Told each line for the user: a hook that did not load, what was left out untrusted, SessionStart's notices. */
  say(line: string): void;
  /** The events the harness fires (default: this chapter's, `HOOK_EVENTS`); a hook for another is not loaded. */
  events?: readonly HookEventName[];
  /** More that the project ships, from a later chapter's mechanism: trusted or not in the same question. */
  also?: readonly Shipped[];
}

/**
 * Load the hooks of `session.cwd`, decide whether what the project ships applies, then run SessionStart.
 * Contract: never rejects for a hook that fails; it spawns nothing when no hook is loaded.
 */
export async function startHooks(options: StartHooksOptions): Promise<StartedHooks> {
  const { session, permissions, ask, say } = options;
  const loaded: LoadedHooks = loadHooks(session.cwd, options.events);
  for (const problem of loaded.problems) say(`hooks: ${problem}`);
  const hooks = shippedHooks(loaded);
  const trust = await decideTrust(session.cwd, [permissions.shipped, hooks, ...(options.also ?? [])], {
    ask: ask && ((question) => ask(question, ["yes", "no", "always"])),
  });
  if (trust.notice) say(trust.notice);
  const { settings, mode } = permissionsAfter(permissions, trust);
  const runProjectHooks = trust.trusted.includes(hooks.kind);
  const { trusted } = trust;
  if (loaded.hooks.length === 0) return { hooks: [], session, runProjectHooks, context: [], settings, mode, trusted };
  const start = sessionStartInput(session, options.transcriptPath);
  const opening = await runHooks(loaded.hooks, start, { cwd: session.cwd, runProjectHooks });
  for (const line of opening.notices) say(`hooks: ${line}`);
  return { hooks: loaded.hooks, session, runProjectHooks, context: opening.context, settings, mode, trusted };
}

/** The project's hooks as a thing to trust: one line per hook for the question, a count per file for the notice. */
export function shippedHooks(loaded: LoadedHooks): Shipped {
  const project = loaded.hooks.filter((hook) => hook.source === "project");
  const summary = loaded.projectDefinitions.map(({ file, shipped }) => {
    const count = project.filter((hook) => hook.file === file).length;
    return `${count} hook${count === 1 ? "" : "s"} in ${file}${shipped === "the project's" ? "" : ` (${shipped})`}`;
  });
  return {
    kind: "hooks",
    definitions: loaded.projectDefinitions,
    lines: project.map(
      (hook) => `${hook.event}${hook.matcher ? ` [${hook.matcher}]` : ""} hook: ${hook.command}   (${hook.file})`,
    ),
    summary: summary.join("; "),
  };
}

/** What the hooks fill besides their start: someone to ask, and where their lines go. */
export interface HookSeamsOptions {
  /** Asked about a call that asks (the rules' or a hook's question); without it, the answer is no. */
  ask?: AskPermission;
  /** Told each line for the user from a hook. */
  notice(line: string): void;
}

/**
 * The loop's seams, with the hooks in them: every call through PreToolUse, s05's permission gate
 * (on the rules the session started with) and PostToolUse (`runCall`); UserPromptSubmit and Stop at
 * the two points that are not a call (`hooks`).
 */
export function hookSeams(started: StartedHooks, options: HookSeamsOptions): { runCall: CallRunner; hooks: LoopHooks } {
  const { ask, notice } = options;
  const gate = permissionGate({ settings: started.settings, mode: started.mode, ask });
  return {
    runCall: hookGate({ ...started, gate, ask, notice }),
    hooks: loopHooks({ ...started, notice }),
  };
}
