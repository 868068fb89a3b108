/**
 * The permission rules decide first (s05); PreToolUse hooks run after them, on calls the rules did
 * not deny. This puts the two decisions together:
 *
 *   rules \ hooks     none     allow             ask    deny (or exit 2)
 *   deny              deny     deny              deny   deny
 *   ask (a rule)      ask      ask               ask    deny
 *   ask (the mode)    ask      allow (no prompt) ask    deny
 *   allow             allow    allow             ask    deny
 *
 * A deny is final: no hook turns it into allow or ask. A hook can always make a call stricter. A
 * hook's allow answers only the prompt the mode would have shown; an ask rule the user wrote still
 * asks (Claude Code's rule too). Where the rules ask already, a hook's ask leaves their question
 * (which may offer "always"); where they allow, the hook's ask is put to the user. A hook that
 * stops the loop (`"continue": false`) denies the call.
 */
import type { Behavior } from "@harness/s05-permissions";
import type { HookVerdict } from "./combine-hook-outcomes.ts";

/** What the permission rules decided about a call. */
export interface RulesDecision {
  behavior: Behavior;
  /** The rule that decided, as written; absent when the mode's default decided. */
  rule?: string;
  /** Why, in words, for the model or the prompt. */
  reason?: string;
}

/** The decision a call is run on, and who made it. */
export interface ToolDecision {
  behavior: Behavior;
  reason: string;
  decidedBy: "rules" | "hooks";
}

/** Put the rules' decision and the hooks' verdict together. Contract: a rules deny is never loosened. */
export function combinePermission(rules: RulesDecision, hooks: HookVerdict | undefined): ToolDecision {
  const byRules: ToolDecision = {
    behavior: rules.behavior,
    reason: rules.reason ?? rulesReason(rules),
    decidedBy: "rules",
  };
  if (rules.behavior === "deny") return byRules;
  if (hooks?.stop !== undefined) return { behavior: "deny", reason: hooks.stop, decidedBy: "hooks" };
  const fromHooks = hooks?.permission;
  if (!fromHooks) return byRules;
  switch (fromHooks.behavior) {
    case "deny":
      return { behavior: "deny", reason: fromHooks.reason, decidedBy: "hooks" };
    case "ask":
      // the rules' own question is put when they ask; the hook's, when they allow
      if (rules.behavior === "ask") return byRules;
      return { behavior: "ask", reason: fromHooks.reason, decidedBy: "hooks" };
    case "allow":
      // an allow answers the mode's prompt, never a rule the user wrote
      if (rules.behavior === "ask" && rules.rule === undefined) {
        return { behavior: "allow", reason: fromHooks.reason, decidedBy: "hooks" };
      }
      return byRules;
  }
}

function rulesReason(rules: RulesDecision): string {
  return rules.rule ? `the rule ${rules.rule}` : `the permission mode (${rules.behavior})`;
}
