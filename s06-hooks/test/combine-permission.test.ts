import type { Behavior } from "@harness/s05-permissions";
import { describe, expect, it } from "vitest";
import type { HookVerdict } from "../src/runner/combine-hook-outcomes.ts";
import { combinePermission, type RulesDecision } from "../src/runner/combine-permission.ts";

/** A PreToolUse verdict whose hooks decided `behavior` (or nothing). */
function hooks(behavior?: Behavior): HookVerdict {
  return {
    event: "PreToolUse",
    context: [],
    notices: [],
    runs: [],
    ...(behavior ? { permission: { behavior, reason: `a hook said ${behavior}` } } : {}),
  };
}

const denyRule: RulesDecision = { behavior: "deny", rule: "bash(rm:*)", reason: "rm is denied" };
const askRule: RulesDecision = { behavior: "ask", rule: "bash(git push:*)" };
const askMode: RulesDecision = { behavior: "ask" };
const allowRule: RulesDecision = { behavior: "allow", rule: "read_file" };

describe("combinePermission", () => {
  // the table in combine-permission.ts, row by row
  it.each([
    [denyRule, undefined, "deny", "rules"],
    [denyRule, "allow", "deny", "rules"],
    [denyRule, "ask", "deny", "rules"],
    [denyRule, "deny", "deny", "rules"],
    [askRule, undefined, "ask", "rules"],
    [askRule, "allow", "ask", "rules"],
    [askRule, "ask", "ask", "rules"],
    [askRule, "deny", "deny", "hooks"],
    [askMode, undefined, "ask", "rules"],
    [askMode, "allow", "allow", "hooks"],
    [askMode, "ask", "ask", "rules"],
    [askMode, "deny", "deny", "hooks"],
    [allowRule, undefined, "allow", "rules"],
    [allowRule, "allow", "allow", "rules"],
    [allowRule, "ask", "ask", "hooks"],
    [allowRule, "deny", "deny", "hooks"],
  ] as const)("rules %j with hooks %s: %s, decided by the %s", (rules, hook, behavior, decidedBy) => {
    expect(combinePermission(rules, hooks(hook))).toMatchObject({ behavior, decidedBy });
  });

  it("never lets a hook loosen a deny, whatever it says", () => {
    for (const hook of [undefined, "allow", "ask", "deny"] as const) {
      expect(combinePermission(denyRule, hooks(hook))).toEqual({
        behavior: "deny",
        reason: "rm is denied",
        decidedBy: "rules",
      });
    }
    const stopping = { ...hooks("allow"), stop: "stop now" };
    expect(combinePermission(denyRule, stopping).decidedBy).toBe("rules");
  });

  it("keeps the hook's reason, and names the rule or the mode when the rules decided without one", () => {
    expect(combinePermission(allowRule, hooks("deny")).reason).toBe("a hook said deny");
    expect(combinePermission(askRule, hooks()).reason).toBe("the rule bash(git push:*)");
    expect(combinePermission(askMode, undefined).reason).toBe("the permission mode (ask)");
  });
});
