/**
 * Several hooks on one event run at once; their outcomes become one verdict, the same whichever
 * finished first: a permission decision deny > ask > allow, a block whenever any hook blocked,
 * and every reason, context and message in config order.
 *
 * Where each outcome goes depends on the event (Claude Code's table):
 *
 *   event             exit 2 / decision "block"                    exit 0 plain stdout
 *   PreToolUse        the call does not run (permission deny)      ignored
 *   PostToolUse       `block`: for the model, beside the result    ignored
 *   UserPromptSubmit  `block`: the prompt is not sent; for the user  context for the model
 *   Stop              `block`: the loop goes on with it as the     ignored
 *                     next user message
 *   SessionStart      a notice for the user (nothing to block)     context for the model
 *
 * A PreToolUse hook may also change the call (`updatedInput`); two hooks that change it in
 * different ways deny it, since no order between them would be the same every time.
 */
import { BEHAVIOR_RANK, type Behavior } from "@harness/s05-permissions";
import type { HookEventName } from "./hook-input.ts";
import type { HookOutcome } from "./read-hook-run.ts";
import type { HookRun } from "./run-hook.ts";

/** What the hooks of one event decided together. */
export interface HookVerdict {
  event: HookEventName;
  /** PreToolUse only: the strictest decision any hook made (deny > ask > allow), with their reasons. */
  permission?: { behavior: Behavior; reason: string };
  /** PreToolUse only: the input the call runs with instead, as a hook gave it (`updatedInput`). */
  updatedInput?: Record<string, unknown>;
  /**
   * Set when a hook blocked (PostToolUse, UserPromptSubmit, Stop): the blocking hooks' reasons,
   * one per line. For PreToolUse a block is a `permission` deny instead.
   */
  block?: string;
  /** Text for the model: `additionalContext`, and the plain stdout of UserPromptSubmit and SessionStart hooks. */
  context: string[];
  /** One line each for the user: failures, timeouts, `systemMessage`s, SessionStart blocks. */
  notices: string[];
  /** Set when a hook printed `"continue": false`: the loop stops after this event; this is shown to the user. */
  stop?: string;
  /** Every hook that ran, in config order: for a trace, and for tests. */
  runs: HookRun[];
}

/**
 * Combine the outcomes of one event's hooks, given in config order.
 * Contract: the verdict depends on the outcomes and their config order only, never on timing.
 */
export function combineHookOutcomes(
  event: HookEventName,
  results: readonly { run: HookRun; outcome: HookOutcome }[],
): HookVerdict {
  const verdict: HookVerdict = { event, context: [], notices: [], runs: results.map((r) => r.run) };
  const blocks: string[] = [];
  const decisions: { behavior: Behavior; reason: string }[] = [];
  const stops: string[] = [];
  const updates: Record<string, unknown>[] = [];

  for (const { run, outcome } of results) {
    switch (outcome.kind) {
      case "error":
        verdict.notices.push(outcome.message);
        break;
      case "block":
        // at SessionStart there is nothing to block: the reason is only shown
        if (event === "PreToolUse") decisions.push({ behavior: "deny", reason: outcome.reason });
        else if (event === "SessionStart") verdict.notices.push(outcome.reason);
        else blocks.push(outcome.reason);
        break;
      case "ok": {
        verdict.notices.push(...outcome.notices);
        const output = outcome.output;
        if (!output) {
          if ((event === "UserPromptSubmit" || event === "SessionStart") && outcome.text !== "") {
            verdict.context.push(outcome.text);
          }
          break;
        }
        if (output.systemMessage) verdict.notices.push(output.systemMessage);
        if (output.continue === false) stops.push(output.stopReason ?? `a ${event} hook stopped the loop`);
        const specific = output.hookSpecificOutput;
        if (specific?.additionalContext) verdict.context.push(specific.additionalContext);
        const reason = output.reason ?? `${event} hook ${JSON.stringify(run.hook.command)}`;
        if (event === "PreToolUse") {
          const decision = permissionOf(output.decision, specific?.permissionDecision);
          if (decision) decisions.push({ behavior: decision, reason: specific?.permissionDecisionReason ?? reason });
          if (specific?.updatedInput) updates.push(specific.updatedInput);
        } else if (output.decision === "block") {
          if (event === "SessionStart") verdict.notices.push(reason);
          else blocks.push(reason);
        }
        break;
      }
    }
  }

  const inputs = new Set(updates.map((input) => JSON.stringify(input)));
  if (inputs.size > 1) {
    decisions.push({ behavior: "deny", reason: "two PreToolUse hooks changed the call's input in different ways" });
  } else if (updates.length > 0) verdict.updatedInput = updates[0];
  if (blocks.length > 0) verdict.block = blocks.join("\n");
  if (stops.length > 0) verdict.stop = stops.join("\n");
  if (decisions.length > 0) {
    const strictest = decisions.reduce((a, b) =>
      BEHAVIOR_RANK[b.behavior] > BEHAVIOR_RANK[a.behavior] ? b : a,
    ).behavior;
    const reasons = decisions.filter((d) => d.behavior === strictest).map((d) => d.reason);
    verdict.permission = { behavior: strictest, reason: reasons.join("\n") };
  }
  return verdict;
}

/** `permissionDecision` wins over the older `decision` field, as in Claude Code. */
function permissionOf(
  decision: "block" | "approve" | undefined,
  permissionDecision: Behavior | undefined,
): Behavior | undefined {
  if (permissionDecision) return permissionDecision;
  if (decision === "block") return "deny";
  if (decision === "approve") return "allow";
  return undefined;
}
