/**
 * What a hook reads: one JSON object on stdin, in Claude Code's field names, so a hook written for
 * Claude Code reads this course's events unchanged. One builder per event. `tool_name` is Claude
 * Code's name for the tools that have one (`Bash`, `Read`, `Write`, `Edit`, `Glob`, `Grep`: s05's
 * `CLAUDE_CODE_TOOL_NAMES`), the course's own for any other, so a hook testing for `"Bash"` sees bash.
 *
 * Left out: `transcript_path` on every event (s07-sessions adds it to SessionStart, for a session
 * it resumes) and Claude Code's events this course does not fire (Notification, PreCompact,
 * SessionEnd ...). SubagentStop's input is here, but this chapter's loop has no child to stop: a
 * harness that starts children fires it and loads its hooks (`loadHooks`'s `events`).
 */
import { isAbsolute, resolve } from "node:path";
import { CLAUDE_CODE_TOOL_NAMES } from "@harness/s05-permissions";
import type { ToolCall, ToolResult } from "@harness/shared";

/** The points of the loop where hooks run; SubagentStop only in a harness that starts child loops. */
export type HookEventName =
  | "SessionStart"
  | "UserPromptSubmit"
  | "PreToolUse"
  | "PostToolUse"
  | "Stop"
  | "SubagentStop";

/** Every event this chapter's loop fires, in the order a session meets them. */
export const HOOK_EVENTS: readonly HookEventName[] = [
  "SessionStart",
  "UserPromptSubmit",
  "PreToolUse",
  "PostToolUse",
  "Stop",
];

/** Which session a hook runs in, and where. */
export interface HookSession {
  /** An id for the session, the same for every event of one run. */
  sessionId: string;
  /** The working directory: the hook's cwd, and `cwd` on its stdin. */
  cwd: string;
}

/** The fields every hook input has. */
export interface HookInputCommon {
  session_id: string;
  cwd: string;
}

/** The object a hook gets on stdin; `hook_event_name` says which event it is. */
export type HookInput =
  | (HookInputCommon & { hook_event_name: "SessionStart"; source: "startup" })
  | (HookInputCommon & { hook_event_name: "SessionStart"; source: "resume"; transcript_path: string })
  | (HookInputCommon & { hook_event_name: "UserPromptSubmit"; prompt: string })
  | (HookInputCommon & {
      hook_event_name: "PreToolUse";
      tool_name: string;
      tool_input: Record<string, unknown>;
      tool_use_id: string;
    })
  | (HookInputCommon & {
      hook_event_name: "PostToolUse";
      tool_name: string;
      tool_input: Record<string, unknown>;
      tool_use_id: string;
      tool_response: { content: string; is_error: boolean };
    })
  | (HookInputCommon & { hook_event_name: "Stop"; stop_hook_active: boolean })
  | (HookInputCommon & {
      hook_event_name: "SubagentStop";
      stop_hook_active: boolean;
      /** The child loop's id, and its kind (a matcher is tested against `agent_type`). */
      agent_id: string;
      agent_type: string;
      /** The child's own transcript, when it has one. */
      agent_transcript_path?: string;
      /** The child's answer, about to stand. */
      last_assistant_message: string;
    });

const common = (session: HookSession): HookInputCommon => ({ session_id: session.sessionId, cwd: session.cwd });

/**
 * The session has started: a new one, or, given the path of its transcript, one resumed from it
 * (s07): then `source` is "resume" and the hook may read the conversation so far at `transcript_path`.
 */
export function sessionStartInput(session: HookSession, transcriptPath?: string): HookInput {
  const start = { ...common(session), hook_event_name: "SessionStart" } as const;
  if (transcriptPath === undefined) return { ...start, source: "startup" };
  return { ...start, source: "resume", transcript_path: transcriptPath };
}

/** The user typed a prompt; it has not been sent yet. */
export function userPromptInput(session: HookSession, prompt: string): HookInput {
  return { ...common(session), hook_event_name: "UserPromptSubmit", prompt };
}

/** A tool call the permission rules did not deny, about to run. */
export function preToolUseInput(session: HookSession, call: ToolCall): HookInput {
  return {
    ...common(session),
    hook_event_name: "PreToolUse",
    tool_name: hookToolName(call.name),
    tool_input: toolInputForHooks(call.input, session.cwd),
    tool_use_id: call.id,
  };
}

/** A tool call that ran, with its result (failed ones too: `is_error` says which). */
export function postToolUseInput(session: HookSession, call: ToolCall, result: ToolResult): HookInput {
  return {
    ...common(session),
    hook_event_name: "PostToolUse",
    tool_name: hookToolName(call.name),
    tool_input: toolInputForHooks(call.input, session.cwd),
    tool_use_id: call.id,
    tool_response: { content: result.content, is_error: result.isError },
  };
}

/** The name a hook reads for a tool: Claude Code's, where it has one; the course's otherwise. */
export function hookToolName(name: string): string {
  const names: Readonly<Record<string, string>> = CLAUDE_CODE_TOOL_NAMES;
  return Object.hasOwn(names, name) ? names[name] : name;
}

/**
 * The loop is about to return a final answer. `stopHookActive` is true when a Stop hook already
 * sent the loop on once for this prompt, as in Claude Code.
 */
export function stopInput(session: HookSession, stopHookActive: boolean): HookInput {
  return { ...common(session), hook_event_name: "Stop", stop_hook_active: stopHookActive };
}

/**
 * The call's input as the model wrote it, plus `file_path`: the absolute path of a `path`
 * argument. The course's file tools take a path relative to the working directory; Claude Code's
 * take `file_path`, absolute, and hooks written for it read that field.
 * Contract: never changes a field the model wrote; adds `file_path` only when absent.
 */
export function toolInputForHooks(input: unknown, cwd: string): Record<string, unknown> {
  if (input === null || typeof input !== "object" || Array.isArray(input)) return {};
  const fields = input as Record<string, unknown>;
  if (typeof fields.path !== "string" || "file_path" in fields) return { ...fields };
  return { ...fields, file_path: isAbsolute(fields.path) ? fields.path : resolve(cwd, fields.path) };
}

/**
 * A call's input as a hook's `updatedInput` gives it back, in the course's fields: `file_path`,
 * which Claude Code's file tools take, becomes `path` when the hook changed it, and is dropped when
 * it is only the one `toolInputForHooks` added. `updatedInput` is the whole new input, as in Claude
 * Code: a field it leaves out is gone.
 * Contract: never throws; every other field is the hook's, unchanged.
 */
export function inputFromHook(updated: Record<string, unknown>, call: ToolCall, cwd: string): Record<string, unknown> {
  const given = toolInputForHooks(call.input, cwd);
  const own = call.input !== null && typeof call.input === "object" && "file_path" in call.input;
  if (own || !("file_path" in given)) return { ...updated }; // no file_path of ours to translate
  const { file_path, ...rest } = updated;
  return file_path !== undefined && file_path !== given.file_path ? { ...rest, path: file_path } : rest;
}
