/**
 * The shared fault matrix against s08's loop, as s03 to s06 meet it: keeping the history inside
 * the window changes nothing about how a model call fails. Every call is let through (as in s05's
 * run), so no refusal can hide a partial tool call that ran.
 */

import { FAULT_CASES, type FaultMatrixLoop, faultCaseMismatches, runFaultCase } from "@harness/scripted-model";
import { isValidHistory } from "@harness/shared";
import { describe, expect, it } from "vitest";
import { agentLoop } from "../src/agent-loop.ts";

describe("agentLoop under the fault matrix, every call let through", () => {
  it.each(FAULT_CASES.map((fault) => [fault.name, fault] as const))(
    "meets %s as the matrix says, runs no partial tool call, keeps a valid history",
    async (_, fault) => {
      const loop: FaultMatrixLoop = (client, messages, cwd) =>
        agentLoop(client, messages, {
          model: "test-model",
          cwd,
          bashTimeoutMs: 10_000,
          permissionMode: "bypassPermissions",
        });
      const outcome = await runFaultCase(fault, loop);
      expect(faultCaseMismatches(fault, "streaming", outcome)).toEqual([]);
      expect(isValidHistory(outcome.history)).toBe(true);
    },
  );
});
