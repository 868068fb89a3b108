/**
 * The fault matrix on this chapter's loop, on every wire format: each case's script through the
 * format's real SDK and s09's adapter, and on the Messages format through the cache's breakpoints
 * too (`cached`), so a marked request meets every fault as an unmarked one does. A request that
 * failed left nothing of itself in the history: no part of the reply, and no marker.
 */

import type { SendTurn } from "@harness/s03-streaming";
import { scriptedAdapter, WIRE_FORMATS } from "@harness/s09-providers";
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
import { cached } from "../src/cached.ts";

const loop: FaultMatrixLoop<SendTurn> = (send, messages, cwd) =>
  agentLoop(send, messages, { model: "test-model", cwd, bashTimeoutMs: 10_000 });

describe.each(WIRE_FORMATS)("the loop on %s under the fault matrix, the cache on", (format) => {
  it.each(FAULT_CASES.map((fault) => [fault.name, fault] as const))(
    "meets %s as the matrix says, runs no partial tool call, keeps a valid history",
    async (_, fault) => {
      const outcome = await runFaultCase(faultCaseOn(fault, format), loop, {
        connect: (scripted, maxRetries) => {
          const adapter = scriptedAdapter(format, scripted, { maxRetries, retryDelayMs: 1, promptCacheKey: () => "k" });
          return format === "anthropic" ? cached(adapter.streamTurn, { ttl: "5m" }) : adapter.streamTurn;
        },
      });
      expect(faultCaseMismatches(faultCaseOn(fault, format), "streaming", outcome)).toEqual([]);
      expect(historyProblems(outcome.history)).toEqual([]);
      expect(JSON.stringify(outcome.history)).not.toContain("cache_control");
    },
  );
});
