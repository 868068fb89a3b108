/**
 * The shared fault matrix against s08's loop, as s03 to s06 meet it, every call sent through the
 * window as main.ts sends it: keeping the history inside the window changes nothing about how a
 * model call fails. Every call is let through (s02's runner, no permission gate), so no refusal
 * can hide a partial tool call that ran.
 */

import { sendStreamed } from "@harness/s03-streaming";
import { FAULT_CASES, type FaultMatrixLoop, faultCaseMismatches, runFaultCase } from "@harness/scripted-model";
import { historyProblems } from "@harness/shared";
import { describe, expect, it } from "vitest";
import { agentLoop } from "../src/agent-loop.ts";
import { ContextWindow } from "../src/context-window.ts";

describe("agentLoop under the fault matrix, every call let through the window", () => {
  it.each(FAULT_CASES.map((fault) => [fault.name, fault] as const))(
    "meets %s as the matrix says, runs no partial tool call, keeps a valid history",
    async (_, fault) => {
      const loop: FaultMatrixLoop = (client, messages, cwd) => {
        const window = new ContextWindow({ send: sendStreamed(client), model: "test-model" });
        return agentLoop(window.send, messages, {
          model: "test-model",
          cwd,
          bashTimeoutMs: 10_000,
          window,
          emit: window.observe,
        });
      };
      const outcome = await runFaultCase(fault, loop);
      expect(faultCaseMismatches(fault, "streaming", outcome)).toEqual([]);
      expect(historyProblems(outcome.history)).toEqual([]);
    },
  );
});
