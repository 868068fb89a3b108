/**
 * The hooks around one tool call, as a `CallRunner` wrapped around s05's permission gate:
 * PreToolUse after the rules' decision (`combinePermission`), PostToolUse after the result. A
 * PreToolUse hook that asks about a call the rules allow puts the question to the user, as Claude
 * Code does; with no one to ask, the answer is no.
 */
import type { CallRunner } from "@harness/s02-tool-dispatch";
import {
  type AskPermission,
  decide,
  type PermissionMode,
  type PermissionRequest,
  type PermissionSettings,
  permissionGate,
  refusal,
} from "@harness/s05-permissions";
import type { ToolCall, ToolResult } from "@harness/shared";
import { combinePermission } from "./runner/combine-permission.ts";
import { type HookSession, postToolUseInput, preToolUseInput } from "./runner/hook-input.ts";
import type { HookCommand } from "./runner/load-hooks.ts";
import { runHooks } from "./runner/run-hooks.ts";

/** What the hooks around a call need. */
export interface HookGateOptions {
  hooks: readonly HookCommand[];
  session: HookSession;
  /** Whether the project's hooks may run (decideTrust). */
  runProjectHooks: boolean;
  settings: PermissionSettings;
  mode: PermissionMode;
  /** s05's gate: asks, refuses or runs the call by the rules. */
  gate: CallRunner;
  /** Asked when a hook asks about a call the rules allow; without it, the answer is no. */
  ask?: AskPermission;
  /** Told each hook notice (failures, systemMessages), one line each. */
  notice?: (line: string) => void;
}

/**
 * Contract: a call the rules deny never reaches a hook (nor runs); a PreToolUse deny (exit 2, or a
 * JSON decision) answers the call with an is_error result carrying the hook's reason, and nothing
 * runs; a PreToolUse ask runs the call only when the user answers yes; a hook that fails any other
 * way (exit 1, a timeout) blocks nothing.
 */
export function hookGate(options: HookGateOptions): CallRunner {
  // a hook allow answers the mode's question: the same gate, with the answer given
  const approved = permissionGate({ settings: options.settings, mode: options.mode, ask: async () => "yes" });
  const hookOptions = { cwd: options.session.cwd, runProjectHooks: options.runProjectHooks };
  return async (tools, call, context) => {
    // the rules first: a call they deny is refused by the gate, and no PreToolUse hook runs
    const rules = decide(call, options.settings, options.mode, context.cwd);
    if (rules.behavior === "deny") return options.gate(tools, call, context);
    const pre = await runHooks(options.hooks, preToolUseInput(options.session, call), {
      ...hookOptions,
      signal: context.signal,
    });
    for (const line of pre.notices) options.notice?.(line);
    const decision = combinePermission(rules, pre);
    let result: ToolResult;
    if (decision.decidedBy === "hooks" && decision.behavior === "deny") {
      result = refusal("denied", `a PreToolUse hook blocked this call: ${decision.reason}`);
    } else if (decision.decidedBy === "hooks" && decision.behavior === "allow") {
      result = await approved(tools, call, context);
    } else if (decision.decidedBy === "hooks" && decision.behavior === "ask") {
      // the rules allow it, a hook asks: the user decides, yes or no (no rule to save: the rules allow it already)
      const question = `${describeCall(call)} asks (by a PreToolUse hook: ${decision.reason}). Run it?`;
      const request: PermissionRequest = {
        call,
        decision: { behavior: "ask", reason: question },
        question,
        choices: ["yes", "no"],
        rules: [],
      };
      const answer = options.ask ? await options.ask(request).catch(() => "no") : "no";
      const answered = options.ask ? "the answer was no" : "there was no one to ask";
      result =
        answer === "yes"
          ? await approved(tools, call, context)
          : refusal(
              "not_approved",
              `a PreToolUse hook asks about this call (${decision.reason}), and ${answered}, so nothing ran.`,
            );
    } else {
      result = await options.gate(tools, call, context);
    }
    const post = await runHooks(options.hooks, postToolUseInput(options.session, call, result), {
      ...hookOptions,
      signal: context.signal,
    });
    for (const line of post.notices) options.notice?.(line);
    const beside = [...(post.block !== undefined ? [post.block] : []), ...post.context];
    if (beside.length === 0) return result;
    return { ...result, content: `${result.content}\n\n[PostToolUse hook]\n${beside.join("\n")}` };
  };
}

/** A call in a question: the command of a bash call, else the tool and the path or input. */
function describeCall(call: ToolCall): string {
  const input = (call.input ?? {}) as Record<string, unknown>;
  if (call.name === "bash" && typeof input.command === "string") return `the command \`${input.command}\``;
  if (typeof input.path === "string") return `${call.name} of ${input.path}`;
  return `${call.name} ${JSON.stringify(input).slice(0, 200)}`;
}
