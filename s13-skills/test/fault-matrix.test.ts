/**
 * The fault matrix on this chapter's loop, on every wire format, with what s13 adds in place: the
 * skill tool in the tool map, the call runner around it, a skill active before the run (its
 * allowed-tools among the rules) and the restatement on the window. Each case's script goes
 * through the format's real SDK and s09's adapter (and s10's breakpoints on the Messages format).
 * A fault meets the skills as it meets everything else: the run ends as the matrix says, the
 * history stays valid, and however it ends, the skill's allowed-tools leave the rules with the run.
 * Then the loop contract: the stop-reason table's cases, played against the same loop.
 */

import { ALL_TOOLS, dispatch, toolMap } from "@harness/s02-tool-dispatch";
import { fanOut } from "@harness/s04-tracing";
import { loadPermissionSettings, type PermissionSettings } from "@harness/s05-permissions";
import { ContextWindow } from "@harness/s08-compaction";
import { anthropicAdapter, type ProviderAdapter, scriptedAdapter, WIRE_FORMATS } from "@harness/s09-providers";
import { cached } from "@harness/s10-prompt-caching";
import {
  FAULT_CASES,
  type FaultMatrixLoop,
  faultCaseMismatches,
  faultCaseOn,
  LOOP_CONTRACT,
  loopContractMismatches,
  runFaultCase,
  runLoopContractCase,
} from "@harness/scripted-model";
import { historyProblems } from "@harness/shared";
import { describe, expect, it } from "vitest";
import { agentLoop } from "../src/agent-loop.ts";
import type { Skill } from "../src/discover-skills.ts";
import { restateSkills } from "../src/restate-skills.ts";
import { Skills } from "../src/skills.ts";

const CHECKLIST: Skill = {
  name: "checklist",
  description: "Checks a change.",
  body: "Run the checks.",
  allowedTools: ["Bash(git log:*)"],
  disableModelInvocation: false,
  source: "user",
  dir: "/nowhere/checklist",
  file: "~/.harness/skills/checklist/SKILL.md",
};

/** Each run's rules, as they were before its skill was loaded and as the run left them. */
const rules: Array<{ before: string; after: () => string }> = [];

/** s13's loop as main.ts builds it: a skill loaded (by the user) before the run, its rules taken out as it ends. */
function skillsFor(cwd: string): { skills: Skills; settings: PermissionSettings } {
  const settings = loadPermissionSettings(cwd, {}, { trusted: false }) as PermissionSettings;
  const skills = new Skills({ skills: [CHECKLIST], settings, projectTrusted: false });
  const show = () => JSON.stringify(settings.rules.map((rule) => rule.source));
  rules.push({ before: show(), after: show });
  skills.load("checklist", undefined, "user");
  return { skills, settings };
}

const loop: FaultMatrixLoop<ProviderAdapter> = (adapter, messages, cwd) => {
  const { skills } = skillsFor(cwd);
  const send = adapter.format === "anthropic" ? cached(adapter.streamTurn, { ttl: "5m" }) : adapter.streamTurn;
  const window = new ContextWindow({
    send,
    tooLong: adapter.promptTooLong,
    model: "test-model",
    emit: restateSkills(skills),
  });
  const tool = skills.tool();
  return agentLoop(window.send, messages, {
    model: "test-model",
    cwd,
    bashTimeoutMs: 10_000,
    tools: toolMap([...ALL_TOOLS, ...(tool ? [tool] : [])]),
    runCall: skills.around(dispatch),
    window,
    emit: window.observe,
  }).finally(() => skills.endRun());
};

describe.each(WIRE_FORMATS)("the loop on %s under the fault matrix, with a skill active", (format) => {
  it.each(FAULT_CASES.map((fault) => [fault.name, fault] as const))(
    "meets %s as the matrix says, runs no partial tool call, keeps a valid history, and takes the skill's rules out",
    async (_, fault) => {
      rules.splice(0);
      const outcome = await runFaultCase(faultCaseOn(fault, format), loop, {
        connect: (scripted, maxRetries) =>
          scriptedAdapter(format, scripted, { maxRetries, retryDelayMs: 1, promptCacheKey: () => "k" }),
      });
      expect(faultCaseMismatches(faultCaseOn(fault, format), "streaming", outcome)).toEqual([]);
      expect(historyProblems(outcome.history)).toEqual([]);
      expect(rules.length).toBeGreaterThan(0);
      for (const run of rules) expect(run.after()).toBe(run.before);
    },
  );
});

describe("the loop contract on this chapter's loop, with the skill tool offered", () => {
  it.each(LOOP_CONTRACT.map((rule) => [rule.name, rule] as const))("%s", async (_, rule) => {
    const outcome = await runLoopContractCase(rule, (client, messages, cwd, emit) => {
      const { skills } = skillsFor(cwd);
      const tool = skills.tool();
      return agentLoop(anthropicAdapter(client).streamTurn, messages, {
        model: "test-model",
        cwd,
        bashTimeoutMs: 10_000,
        tools: toolMap([...ALL_TOOLS, ...(tool ? [tool] : [])]),
        runCall: skills.around(dispatch),
        emit: fanOut(emit),
      }).finally(() => skills.endRun());
    });
    expect(loopContractMismatches(rule, outcome)).toEqual([]);
  });
});
