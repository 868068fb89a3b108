/**
 * The shared fault matrix against s04's loop: s03's streaming behaviour, and a trace that reads
 * back whatever the fault, one record per completed iteration, ending in a result or an error.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FAULT_CASES, type FaultMatrixLoop, faultCaseMismatches, runFaultCase } from "@harness/scripted-model";
import { isValidHistory } from "@harness/shared";
import { afterAll, describe, expect, it } from "vitest";
import { agentLoop } from "../src/agent-loop.ts";
import { readTrace, sentRequests } from "../src/viewer/read-trace.ts";
import { TraceWriter } from "../src/trace-writer.ts";

const traceDirs: string[] = [];
afterAll(() => {
  for (const dir of traceDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("agentLoop under the fault matrix, traced", () => {
  it.each(FAULT_CASES.map((fault) => [fault.name, fault] as const))(
    "meets %s as the matrix says, runs no partial tool call, keeps a valid history and a readable trace",
    async (_, fault) => {
      const dir = mkdtempSync(join(tmpdir(), "s03-fault-traces-"));
      traceDirs.push(dir);
      const writer = new TraceWriter("fault", dir, []);
      const loop: FaultMatrixLoop = (client, messages, cwd) =>
        agentLoop(client, messages, { model: "test-model", cwd, bashTimeoutMs: 10_000, trace: writer });

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
      for (const { request } of requests) expect(isValidHistory(request.messages)).toBe(true);
    },
  );
});
