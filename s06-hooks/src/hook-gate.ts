/**
 * The hooks around one tool call, as a `CallRunner` wrapped around s05's permission gate:
 * PreToolUse after the rules' decision (`combinePermission`), PostToolUse after the result. A
 * PreToolUse hook that asks about a call the rules allow puts the question to the user, as Claude
 * Code does; with no one to ask, the answer is no. A PreToolUse hook that changes the call
 * (`updatedInput`) changes what runs, and the rules decide the new call again, as in Claude Code.
 */
import { type CallRunner, codedError, type ToolContext, type ToolMap } from "@harness/s02-tool-dispatch";
import {
  type AskPermission,
  decide,
  type PermissionMode,
  type PermissionRequest,
  type PermissionSettings,
  permissionGate,
  refusal,
  shellParserReady,
} from "@harness/s05-permissions";
import type { ToolCall, ToolResult } from "@harness/shared";
import { combinePermission, type ToolDecision } from "./runner/combine-permission.ts";
import { type HookSession, inputFromHook, postToolUseInput, preToolUseInput } from "./runner/hook-input.ts";
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
 * way (exit 1, a timeout) blocks nothing. A hook's `updatedInput` is the call that runs, decided
 * again by the rules (a deny still wins); input the tool does not take runs nothing, the original
 * call neither.
 */
export function hookGate(options: HookGateOptions): CallRunner {
  const { settings, mode } = options;
  // a hook allow answers the mode's question: the same gate, with the answer given
  const approved = permissionGate({ settings, mode, ask: async () => "yes" });
  const hookOptions = { cwd: options.session.cwd, runProjectHooks: options.runProjectHooks };
  return async (tools, call, context) => {
    // the rules first: a call they deny is refused by the gate, and no PreToolUse hook runs
    await shellParserReady();
    const rules = decide(call, settings, mode, context.cwd);
    if (rules.behavior === "deny") return options.gate(tools, call, context);
    const pre = await runHooks(options.hooks, preToolUseInput(options.session, call), {
      ...hookOptions,
      signal: context.signal,
    });
    for (const line of pre.notices) options.notice?.(line);
    // a hook changed the call: what runs is the new one, and the rules judge it afresh
    const changed = changedCall(tools, call, pre.updatedInput, options.session.cwd);
    let ran = call;
    let result: ToolResult;
    if (typeof changed === "string") {
      const why = `a PreToolUse hook changed this call's input (updatedInput) to one ${call.name} does not take (${changed}); nothing ran.`;
      result = codedError("invalid_arguments", why);
    } else {
      if (changed !== call) {
        options.notice?.(`a PreToolUse hook changed the call: ${describeInput(call)} is now ${describeInput(changed)}`);
        ran = changed;
      }
      const decision = combinePermission(ran === call ? rules : decide(ran, settings, mode, context.cwd), pre);
      result = await runDecided(ran, decision, tools, context);
    }
    const post = await runHooks(options.hooks, postToolUseInput(options.session, ran, result), {
      ...hookOptions,
      signal: context.signal,
    });
    for (const line of post.notices) options.notice?.(line);
    const beside = [...(post.block !== undefined ? [post.block] : []), ...post.context];
    if (beside.length === 0) return result;
    return { ...result, content: `${result.content}\n\n[PostToolUse hook]\n${beside.join("\n")}` };
  };

  /** Run `call` as the rules and the hooks decided together: refused, asked about, or through a gate. */
  async function runDecided(
    call: ToolCall,
    decision: ToolDecision,
    tools: ToolMap,
    context: ToolContext,
  ): Promise<ToolResult> {
    if (decision.decidedBy === "hooks" && decision.behavior === "deny") {
      return refusal("denied", `a PreToolUse hook blocked this call: ${decision.reason}`);
    }
    if (decision.decidedBy === "hooks" && decision.behavior === "allow") return approved(tools, call, context);
    if (decision.decidedBy === "hooks" && decision.behavior === "ask") {
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
      if (answer === "yes") return approved(tools, call, context);
      return refusal(
        "not_approved",
        `a PreToolUse hook asks about this call (${decision.reason}), and ${answered}, so nothing ran.`,
      );
    }
    // the rules decide (a changed call the rules deny is refused here, with the rule)
    return options.gate(tools, call, context);
  }
}

/** The call with a hook's new input, or what is wrong with that input for the tool; the call itself when nothing changed. */
function changedCall(
  tools: ToolMap,
  call: ToolCall,
  updated: Record<string, unknown> | undefined,
  cwd: string,
): ToolCall | string {
  if (updated === undefined) return call;
  const input = inputFromHook(updated, call, cwd);
  if (JSON.stringify(input) === JSON.stringify(call.input)) return call;
  const parsed = tools.get(call.name)?.parse(input);
  if (parsed && !parsed.ok) return parsed.error;
  return { ...call, input };
}

/** A call and its input, for a line to the user. */
function describeInput(call: ToolCall): string {
  return `${call.name} ${JSON.stringify(call.input).slice(0, 200)}`;
}

/** A call in a question: the command of a bash call, else the tool and the path or input. */
function describeCall(call: ToolCall): string {
  const input = (call.input ?? {}) as Record<string, unknown>;
  if (call.name === "bash" && typeof input.command === "string") return `the command \`${input.command}\``;
  if (typeof input.path === "string") return `${call.name} of ${input.path}`;
  return `${call.name} ${JSON.stringify(input).slice(0, 200)}`;
}
