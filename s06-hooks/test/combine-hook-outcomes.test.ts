import { describe, expect, it } from "vitest";
import { combineHookOutcomes } from "../src/runner/combine-hook-outcomes.ts";
import type { HookEventName } from "../src/runner/hook-input.ts";
import type { HookOutcome, HookOutput } from "../src/runner/read-hook-run.ts";
import type { HookRun } from "../src/runner/run-hook.ts";
import { commandHook } from "./command-hook.ts";

/** Outcomes as readHookRun gives them, each with the run of a hook named after its place. */
function combine(event: HookEventName, outcomes: HookOutcome[]) {
  return combineHookOutcomes(
    event,
    outcomes.map((outcome, i) => ({
      run: { hook: commandHook(`./hook-${i}.sh`, { event }) } as HookRun,
      outcome,
    })),
  );
}
const ok = (output?: HookOutput, text = ""): HookOutcome => ({ kind: "ok", output, text, notices: [] });

describe("combineHookOutcomes", () => {
  it("reads Claude Code's older PreToolUse decision: approve is allow, block is deny; permissionDecision wins", () => {
    expect(combine("PreToolUse", [ok({ decision: "approve" })]).permission).toEqual({
      behavior: "allow",
      reason: 'PreToolUse hook "./hook-0.sh"',
    });
    expect(combine("PreToolUse", [ok({ decision: "block", reason: "old style" })]).permission).toEqual({
      behavior: "deny",
      reason: "old style",
    });
    const both = ok({ decision: "block", hookSpecificOutput: { permissionDecision: "ask" } });
    expect(combine("PreToolUse", [both]).permission?.behavior).toBe("ask");
  });

  it('blocks PostToolUse, UserPromptSubmit and Stop on decision "block", with its reason', () => {
    for (const event of ["PostToolUse", "UserPromptSubmit", "Stop"] as const) {
      expect(combine(event, [ok({ decision: "block", reason: "because" })]).block).toBe("because");
    }
  });

  it("blocks nothing at SessionStart: a block there is a notice for the user", () => {
    const verdict = combine("SessionStart", [
      { kind: "block", reason: "no network" },
      ok({ decision: "block", reason: "not now" }),
    ]);
    expect(verdict.block).toBeUndefined();
    expect(verdict.notices).toEqual(["no network", "not now"]);
  });

  it("gives plain stdout to the model only where Claude Code does: UserPromptSubmit and SessionStart", () => {
    expect(combine("UserPromptSubmit", [ok(undefined, "ctx")]).context).toEqual(["ctx"]);
    expect(combine("SessionStart", [ok(undefined, "ctx")]).context).toEqual(["ctx"]);
    for (const event of ["PreToolUse", "PostToolUse", "Stop"] as const) {
      expect(combine(event, [ok(undefined, "debug output")]).context).toEqual([]);
    }
  });

  it("keeps the reasons of every hook that made the strictest decision, in config order", () => {
    const verdict = combine("PreToolUse", [
      ok({ hookSpecificOutput: { permissionDecision: "ask", permissionDecisionReason: "a" } }),
      ok({ hookSpecificOutput: { permissionDecision: "allow", permissionDecisionReason: "b" } }),
      ok({ hookSpecificOutput: { permissionDecision: "ask", permissionDecisionReason: "c" } }),
    ]);
    expect(verdict.permission).toEqual({ behavior: "ask", reason: "a\nc" });
  });

  it("lists notices and context in config order, and stops on continue: false with its stopReason", () => {
    const outcomes: HookOutcome[] = [
      ok({ systemMessage: "one", hookSpecificOutput: { additionalContext: "x" } }),
      { kind: "error", message: "two failed" },
      ok({ systemMessage: "three", continue: false, stopReason: "halt" }),
    ];
    const verdict = combine("PostToolUse", outcomes);
    expect(verdict).toMatchObject({ notices: ["one", "two failed", "three"], context: ["x"], stop: "halt" });
  });

  it("takes one PreToolUse updatedInput, or the same from several hooks; two different ones deny the call", () => {
    const update = (command: string) => ok({ hookSpecificOutput: { updatedInput: { command } } });
    expect(combine("PreToolUse", [update("ls"), ok(), update("ls")])).toMatchObject({
      updatedInput: { command: "ls" },
    });
    const differ = combine("PreToolUse", [update("ls"), update("rm -rf /")]);
    expect(differ.updatedInput).toBeUndefined();
    expect(differ.permission).toEqual({
      behavior: "deny",
      reason: "two PreToolUse hooks changed the call's input in different ways",
    });
  });
});
