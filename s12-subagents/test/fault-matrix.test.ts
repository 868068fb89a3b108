/**
 * The fault matrix on a child's calls, on every wire format: the loop under test is a child as
 * `Subagents` runs it for a task call (its fresh history, its system prompt, its tools, its
 * budgets on its signal). Each case meets the child as the matrix says of any loop (the run ends
 * as it says, no partial tool call runs, the child's history stays valid), and whatever the end,
 * the task call's result is one the parent can send: a report, or an `is_error` that says why.
 */
import { ALL_TOOLS, dispatch, toolMap } from "@harness/s02-tool-dispatch";
import { type ProviderAdapter, scriptedAdapter, WIRE_FORMATS } from "@harness/s09-providers";
import {
  FAULT_CASES,
  type FaultMatrixLoop,
  faultCaseMismatches,
  faultCaseOn,
  runFaultCase,
} from "@harness/scripted-model";
import { type AgentLoopResult, historyProblems, type ToolResult } from "@harness/shared";
import { describe, expect, it } from "vitest";
import { agentLoop } from "../src/agent-loop.ts";
import { GENERAL_PURPOSE } from "../src/agents/agent-definitions.ts";
import { Subagents } from "../src/subagents.ts";
import { TokenBudget } from "../src/token-budget.ts";

/** The task calls' results of a case: its run's, then its next prompt's. */
const answered: ToolResult[] = [];

/**
 * A task call run by `Subagents`, whose child loop runs on the matrix's history (the fresh history
 * it would start from is the prompt alone, which the matrix's first run is; its next prompt goes
 * on in the same history, as the matrix asks of every loop).
 */
const loop: FaultMatrixLoop<ProviderAdapter> = async (adapter, messages, cwd) => {
  let ran: { result?: AgentLoopResult<string>; error?: unknown } = {};
  const tasks = new Subagents({
    loop: async (send, _fresh, options) => {
      try {
        ran.result = await agentLoop(send, messages, options);
        return ran.result;
      } catch (error) {
        ran.error = error;
        throw error;
      }
    },
    send: adapter.streamTurn,
    model: "test-model",
    cwd,
    tools: toolMap(ALL_TOOLS),
    definitions: [GENERAL_PURPOSE],
    maxTurns: 8,
    maxTokens: 1_000_000,
    budget: new TokenBudget(),
    bashTimeoutMs: 10_000,
  });
  ran = {};
  const result = await tasks.run(
    { description: "the case", prompt: "Please do the task." },
    { cwd, task: { callId: "toolu_case", runCall: dispatch } },
  );
  answered.push(result);
  if (ran.error !== undefined) throw ran.error;
  return ran.result ?? { stopReason: "not_run", turns: 0 };
};

describe.each(WIRE_FORMATS)("a child on %s under the fault matrix", (format) => {
  it.each(FAULT_CASES.map((fault) => [fault.name, fault] as const))(
    "meets %s as the matrix says, keeps its history valid, and answers the task call",
    async (_, fault) => {
      answered.splice(0);
      const outcome = await runFaultCase(faultCaseOn(fault, format), loop, {
        connect: (scripted, maxRetries) =>
          scriptedAdapter(format, scripted, { maxRetries, retryDelayMs: 1, promptCacheKey: () => "k" }),
      });
      expect(faultCaseMismatches(faultCaseOn(fault, format), "streaming", outcome)).toEqual([]);
      expect(historyProblems(outcome.history)).toEqual([]);
      const [first] = answered;
      const reported = outcome.end.kind === "stopped" && outcome.end.stopReason === "final_answer";
      if (!reported) expect(first.isError).toBe(true);
      if (first.isError) expect(first.content).toMatch(/^Error \[[a-z_]+\]: /);
    },
  );
});
