/**
 * The shared fault matrix against s07's loop, a transcript listening as main.ts attaches it: a
 * session meets every fault as s06 does, and whatever happened, the transcript holds the history
 * the loop had (each message written before it joined, its prompts as sent), one the API accepts
 * once the repair on load is added.
 */
import { join } from "node:path";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { sendStreamed } from "@harness/s03-streaming";
import { loopHooks } from "@harness/s06-hooks";
import { FAULT_CASES, type FaultMatrixLoop, faultCaseMismatches, runFaultCase } from "@harness/scripted-model";
import { historyProblems } from "@harness/shared";
import { describe, expect, it } from "vitest";
import { agentLoop } from "../src/agent-loop.ts";
import { interruptedResults } from "../src/interrupted-results.ts";
import { historyOf, readTranscript } from "../src/read-transcript.ts";
import { TranscriptWriter } from "../src/transcript-writer.ts";
import { header, tempDir } from "./transcript-file.ts";

describe("agentLoop under the fault matrix, a transcript kept", () => {
  it.each(FAULT_CASES.map((fault) => [fault.name, fault] as const))(
    "meets %s as the matrix says, and the transcript reads back the history it left, next prompt included",
    async (_, fault) => {
      const h = header();
      const writer = new TranscriptWriter(join(tempDir(), `${h.id}.jsonl`), h, { model: "test-model", secrets: [] });
      let history: MessageParam[] = [];
      const loop: FaultMatrixLoop = (client, messages, cwd) => {
        history = messages; // the loop tells the prompt: the first, then the runner's next one, joined or not
        const session = { sessionId: h.id, cwd };
        return agentLoop(sendStreamed(client), messages, {
          model: "test-model",
          cwd,
          bashTimeoutMs: 10_000,
          emit: writer.record,
          hooks: loopHooks({ hooks: [], session, runProjectHooks: false, notice: () => {} }),
        });
      };
      const outcome = await runFaultCase(fault, loop);
      writer.close();
      expect(faultCaseMismatches(fault, "streaming", outcome)).toEqual([]);
      const onDisk = historyOf(readTranscript(writer.path).records);
      expect(onDisk).toEqual(history); // after the case and the runner's next prompt
      expect(outcome.nextPromptProblem).toBeNull();
      const repair = interruptedResults(onDisk);
      expect(historyProblems(repair ? [...onDisk, repair] : onDisk)).toEqual([]);
    },
  );
});
