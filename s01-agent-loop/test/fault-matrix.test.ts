/**
 * The shared fault matrix against s01's loop, which makes one plain (non-streaming) request per
 * turn: stream faults reach it as an HTTP 500 or a dropped connection, which the SDK retries.
 */
import { FAULT_CASES, type FaultMatrixLoop, faultCaseMismatches, runFaultCase } from "@harness/scripted-model";
import { describe, expect, it } from "vitest";
import { agentLoop } from "../src/agent-loop.ts";

const loop: FaultMatrixLoop = (client, messages, cwd) =>
  agentLoop(client, messages, { model: "test-model", cwd, bashTimeoutMs: 10_000 });

describe("agentLoop under the fault matrix", () => {
  it.each(FAULT_CASES.map((fault) => [fault.name, fault] as const))(
    "meets %s as the matrix says, runs no partial tool call and keeps a valid history",
    async (_, fault) => {
      expect(faultCaseMismatches(fault, "nonStreaming", await runFaultCase(fault, loop))).toEqual([]);
    },
  );
});
