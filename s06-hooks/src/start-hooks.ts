/**
 * A session's hooks, started once before its first prompt: read from the settings files, the
 * project's trusted or not (asked at a terminal, as s06's trust rule says), and SessionStart run,
 * whose output the model reads with the first prompt.
 */
import type { CallRunner } from "@harness/s02-tool-dispatch";
import {
  type AskPermission,
  type PermissionMode,
  type PermissionSettings,
  permissionGate,
} from "@harness/s05-permissions";
import { hookGate } from "./hook-gate.ts";
import { type LoopHooks, loopHooks } from "./loop-hooks.ts";
import { type HookEventName, type HookSession, sessionStartInput } from "./runner/hook-input.ts";
import { type LoadedHooks, loadHooks } from "./runner/load-hooks.ts";
import { runHooks } from "./runner/run-hooks.ts";
import { decideTrust, type TrustAnswer } from "./runner/trust.ts";

/** What a session's hooks start with. */
export interface StartedHooks {
  /** Every hook that loaded (the project's run only when `runProjectHooks`). */
  hooks: LoadedHooks["hooks"];
  session: HookSession;
  /** Whether the project's hooks may run (`decideTrust`). */
  runProjectHooks: boolean;
  /** What SessionStart hooks printed for the model: sent with the first prompt sent. */
  context: string[];
}

/** How a session's hooks start. */
export interface StartHooksOptions {
  session: HookSession;
  /** The transcript a resumed session goes on from (s07): SessionStart is told `source: "resume"`. */
  transcriptPath?: string;
  /** Asks the user at a terminal whether to trust the project's hooks; absent without one. */
  ask?: (question: string, choices: readonly TrustAnswer[]) => Promise<TrustAnswer>;
  /** Told each line for the user: a hook that did not load, the trust decision, SessionStart's notices. */
  notice(line: string): void;
  /** The events the harness fires (default: this chapter's, `HOOK_EVENTS`); a hook for another is not loaded. */
  events?: readonly HookEventName[];
}

/**
 * Load the hooks of `session.cwd`, decide whether the project's may run, then run SessionStart.
 * Contract: never rejects for a hook that fails; it spawns nothing when no hook is loaded.
 */
export async function startHooks(options: StartHooksOptions): Promise<StartedHooks> {
  const { session, notice } = options;
  const loaded: LoadedHooks = loadHooks(session.cwd, options.events);
  for (const problem of loaded.problems) notice(problem);
  if (loaded.hooks.length === 0) return { hooks: [], session, runProjectHooks: false, context: [] };
  const { ask } = options;
  const trust = await decideTrust(session.cwd, loaded, {
    ask: ask && ((question) => ask(question, ["yes", "no", "always"])),
  });
  if (trust.notice) notice(trust.notice.replace(/^hooks: /, ""));
  const start = sessionStartInput(session, options.transcriptPath);
  const opening = await runHooks(loaded.hooks, start, { cwd: session.cwd, runProjectHooks: trust.runProjectHooks });
  opening.notices.forEach(notice);
  return { hooks: loaded.hooks, session, runProjectHooks: trust.runProjectHooks, context: opening.context };
}

/** What the hooks fill besides their start: s05's rules and someone to ask, and where their lines go. */
export interface HookSeamsOptions {
  settings: PermissionSettings;
  mode: PermissionMode;
  /** Asked about a call that asks (the rules' or a hook's question); without it, the answer is no. */
  ask?: AskPermission;
  /** Told each line for the user from a hook. */
  notice(line: string): void;
}

/**
 * The loop's seams, with the hooks in them: every call through PreToolUse, s05's permission gate
 * and PostToolUse (`runCall`); UserPromptSubmit and Stop at the two points that are not a call (`hooks`).
 */
export function hookSeams(started: StartedHooks, options: HookSeamsOptions): { runCall: CallRunner; hooks: LoopHooks } {
  const { settings, mode, ask, notice } = options;
  const gate = permissionGate({ settings, mode, ask });
  return {
    runCall: hookGate({ ...started, settings, mode, gate, ask, notice }),
    hooks: loopHooks({ ...started, notice }),
  };
}
