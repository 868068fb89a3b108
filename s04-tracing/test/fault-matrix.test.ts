/**
 * The shared fault matrix against s04's loop: s03's streaming behaviour, and a trace that reads
 * back whatever the fault, one record per completed iteration, ending in a result or an error.
 */
import { FAULT_CASES, type FaultMatrixLoop, faultCaseMismatches, runFaultCase } from "@harness/scripted-model";
import { historyProblems } from "@harness/shared";
import { describe, expect, it } from "vitest";
import { readTrace, sentRequests } from "../src/viewer/read-trace.ts";
import { testTrace, tracedRun } from "./scripted-trace.ts";

describe("agentLoop under the fault matrix, traced", () => {
  it.each(FAULT_CASES.map((fault) => [fault.name, fault] as const))(
    "meets %s as the matrix says, runs no partial tool call, keeps a valid history and a readable trace",
    async (_, fault) => {
      // the trace as main.ts wires it: a listener on the loop's events, the run ended when it throws
      const traced = testTrace("fault");
      const { writer } = traced;
      const loop: FaultMatrixLoop = (client, messages, cwd) =>
        tracedRun(client, messages, { model: "test-model", cwd, bashTimeoutMs: 10_000 }, traced);

      const outcome = await runFaultCase(fault, loop);
      expect(faultCaseMismatches(fault, "streaming", outcome)).toEqual([]);

      // run 0 is the case: an iteration per completed model call, then its result or its error
      const trace = readTrace(writer.path);
      expect(trace.skippedLines).toBe(0);
      const caseRun = trace.records.filter((r) => r.run === 0);
      const completed = outcome.turns ?? outcome.history.filter((m) => m.role === "assistant").length;
      expect(caseRun.slice(0, -1).map((r) => r.type)).toEqual(Array.from({ length: completed }, () => "iteration"));
      if (outcome.end.kind === "stopped") {
        expect(caseRun.at(-1)).toMatchObject({ type: "result", result: { stopReason: outcome.end.stopReason } });
      } else {
        expect(caseRun.at(-1)).toMatchObject({ type: "error", message: outcome.errorMessage });
      }
      // run 1 is the next prompt, appended to the same trace
      expect(trace.records.filter((r) => r.run === 1).map((r) => r.type)).toEqual(["iteration", "result"]);
      // every request it recorded reads back, and was a valid history
      const requests = [...sentRequests(trace)];
      expect(requests).toHaveLength(trace.records.filter((r) => r.type !== "result").length);
      for (const { request } of requests) expect(historyProblems(request.messages)).toEqual([]);
    },
  );
});
