/**
 * The shared fault matrix against s03's loop, which streams: a stream that fails before any
 * content is sent again, one that fails after content is a StreamError, and a tool call runs only
 * from a complete block of a complete message.
 */
import { FAULT_CASES, type FaultMatrixLoop, faultCaseMismatches, runFaultCase } from "@harness/scripted-model";
import { describe, expect, it } from "vitest";
import { agentLoop } from "../src/agent-loop.ts";
import { sendStreamed } from "../src/stream-turn.ts";

const loop: FaultMatrixLoop = (client, messages, cwd) =>
  agentLoop(sendStreamed(client), messages, { model: "test-model", cwd, bashTimeoutMs: 10_000 });

describe("agentLoop under the fault matrix", () => {
  it.each(FAULT_CASES.map((fault) => [fault.name, fault] as const))(
    "meets %s as the matrix says, runs no partial tool call and keeps a valid history",
    async (_, fault) => {
      expect(faultCaseMismatches(fault, "streaming", await runFaultCase(fault, loop))).toEqual([]);
    },
  );
});
