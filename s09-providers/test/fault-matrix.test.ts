/**
 * The fault matrix on every wire format: each case's script goes out in the format's own wire
 * (an SSE error as Chat's error payload or the Responses `error` event, a cut where the same part
 * of the reply would be, a missing `message_stop` as a missing finish reason or
 * `response.completed`), through the format's real SDK and adapter, into this chapter's loop.
 * `faultCaseOn` says where a format meets a fault differently, and why. The adapter sits behind s08's
 * window, as main.ts puts it; every call is let through (s02's runner, no permission gate), so no
 * refusal can hide a partial call.
 */

import { ContextWindow } from "@harness/s08-compaction";
import {
  FAULT_CASES,
  type FaultMatrixLoop,
  faultCaseMismatches,
  faultCaseOn,
  runFaultCase,
} from "@harness/scripted-model";
import { historyProblems } from "@harness/shared";
import { describe, expect, it } from "vitest";
import { agentLoop } from "../src/agent-loop.ts";
import { scriptedAdapter } from "../src/connect/create-adapter.ts";
import { type ProviderAdapter, WIRE_FORMATS } from "../src/provider-adapter.ts";

const loop: FaultMatrixLoop<ProviderAdapter> = (adapter, messages, cwd) => {
  const window = new ContextWindow({ send: adapter.streamTurn, tooLong: adapter.promptTooLong, model: "test-model" });
  return agentLoop(window.send, messages, {
    model: "test-model",
    cwd,
    bashTimeoutMs: 10_000,
    window,
    emit: window.observe,
  });
};

describe.each(WIRE_FORMATS)("the loop on %s under the fault matrix", (format) => {
  it.each(FAULT_CASES.map((fault) => [fault.name, fault] as const))(
    "meets %s as the matrix says, runs no partial tool call, keeps a valid history",
    async (_, fault) => {
      const outcome = await runFaultCase(faultCaseOn(fault, format), loop, {
        connect: (scripted, maxRetries) => scriptedAdapter(format, scripted, { maxRetries, retryDelayMs: 1 }),
      });
      expect(faultCaseMismatches(faultCaseOn(fault, format), "streaming", outcome)).toEqual([]);
      expect(historyProblems(outcome.history)).toEqual([]);
    },
  );
});
