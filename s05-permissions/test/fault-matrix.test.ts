/**
 * The shared fault matrix against s05's loop, as s04 meets it: the check in front of the tools
 * changes nothing about how a model call fails. The matrix runs in bypassPermissions so that no
 * refusal can hide a partial tool call that ran (its sentinel file would appear); in default mode
 * the check asks, with no one to answer, and refuses the sentinel besides.
 */

import { sendStreamed } from "@harness/s03-streaming";
import { FAULT_CASES, type FaultMatrixLoop, faultCaseMismatches, runFaultCase } from "@harness/scripted-model";
import { historyProblems } from "@harness/shared";
import { describe, expect, it } from "vitest";
import { agentLoop } from "../src/agent-loop.ts";
import { permissionGate } from "../src/permission-gate.ts";
import { defaultPermissionSettings } from "../src/rules/load-settings.ts";

describe("agentLoop under the fault matrix, every call let through", () => {
  it.each(FAULT_CASES.map((fault) => [fault.name, fault] as const))(
    "meets %s as the matrix says, runs no partial tool call, keeps a valid history",
    async (_, fault) => {
      // the gate as main.ts builds it for a project with no settings of its own, every call let through
      const runCall = permissionGate({ settings: defaultPermissionSettings(), mode: "bypassPermissions" });
      const loop: FaultMatrixLoop = (client, messages, cwd) =>
        agentLoop(sendStreamed(client), messages, { model: "test-model", cwd, bashTimeoutMs: 10_000, runCall });
      const outcome = await runFaultCase(fault, loop);
      expect(faultCaseMismatches(fault, "streaming", outcome)).toEqual([]);
      expect(historyProblems(outcome.history)).toEqual([]);
    },
  );
});
