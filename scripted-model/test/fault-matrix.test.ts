/**
 * The fault matrix's own tests: its cases are well formed, and its runner notices what a broken
 * loop does (a sentinel that runs, a history the API would reject, a failed call half kept). The
 * chapters' test/fault-matrix.test.ts run the cases against the real loops.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Message } from "@anthropic-ai/sdk/resources/messages";
import { runBash } from "@harness/shared";
import { afterAll, describe, expect, it } from "vitest";
import {
  FAULT_CASES,
  type FaultCase,
  type FaultMatrixLoop,
  faultCaseMismatches,
  RECOVERED,
  runFaultCase,
  SENTINEL_COMMAND,
} from "../src/faults/fault-matrix.ts";
import { streamEvents } from "../src/wire.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function caseNamed(name: string): FaultCase {
  const found = FAULT_CASES.find((c) => c.name === name);
  if (!found) throw new Error(`no case "${name}"`);
  return found;
}

/**
 * A loop as it should not be written: it trusts the SDK's forgiving stream helper, runs every
 * tool call it gets back, and never sends a tool_result.
 */
const trustingLoop: FaultMatrixLoop = async (client, messages, cwd) => {
  const message: Message = await client.messages
    .stream({ model: "test-model", max_tokens: 1024, messages })
    .finalMessage();
  messages.push({ role: "assistant", content: message.content });
  for (const block of message.content) {
    if (block.type === "tool_use") await runBash(String((block.input as { command?: unknown }).command), { cwd });
  }
  return { stopReason: "final_answer", turns: 1 };
};

describe("FAULT_CASES", () => {
  it("names every case once", () => {
    const names = FAULT_CASES.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it("ends the script of every case a loop recovers from with the recovery reply", () => {
    for (const fault of FAULT_CASES) {
      const recovers = Object.values(fault.expected).some(
        (e) => e.end.kind === "stopped" && e.end.stopReason === "final_answer" && e.requests > 1,
      );
      if (!recovers) continue;
      expect(fault.script.at(-1), fault.name).toEqual({ kind: "reply", content: [{ type: "text", text: RECOVERED }] });
    }
  });

  it("puts the sentinel command in partial, malformed or too deeply nested input only", () => {
    const withSentinel = FAULT_CASES.filter((c) => JSON.stringify(c.script).includes(SENTINEL_COMMAND));
    expect(withSentinel.map((c) => c.name)).toEqual([
      "an SSE error in the middle of a tool call's input",
      "a stream cut mid-tool-input",
      "malformed tool JSON",
      "tool JSON that stops short of its closing brace",
      "tool input nested 10,000 levels deep",
      "a tool call cut by max_tokens",
      "a tool_use block without an id",
    ]);
  });

  it.each(["a stream cut mid-tool-input", "an SSE error in the middle of a tool call's input"])(
    "breaks off %s once the command is whole but before the input closes",
    (name) => {
      const [step] = caseNamed(name).script;
      if (step.kind !== "cut" && step.kind !== "sse_error") throw new Error(`${name} starts with ${step.kind}`);
      const ctx = { messageId: "m", model: "m", toolUseId: (i: number) => `t${i}`, inputTokens: 0 };
      const sent = streamEvents(step.reply ?? { kind: "reply", content: [] }, ctx).slice(0, step.afterEvents);
      const partial = sent
        .map((e) => (e.data.delta as { partial_json?: string } | undefined)?.partial_json ?? "")
        .join("");
      expect(partial).toContain(`"command":"${SENTINEL_COMMAND}"`);
      expect(() => JSON.parse(partial)).toThrow();
    },
  );
});

describe("faultCaseMismatches", () => {
  it("names each rule a broken loop breaks, and nothing for one that meets the case", async () => {
    const fault = caseNamed("tool JSON that stops short of its closing brace");
    const broken = faultCaseMismatches(fault, "streaming", await runFaultCase(fault, trustingLoop));
    expect(broken).toContain("ran a tool call from partial or malformed input");
    expect(broken.some((line) => line.startsWith("history: "))).toBe(true);
    expect(broken.some((line) => line.startsWith("next prompt: "))).toBe(true);
  });
});

describe("runFaultCase", () => {
  it("reports a sentinel that ran, the history problems and a next prompt the API refuses", async () => {
    const outcome = await runFaultCase(caseNamed("tool JSON that stops short of its closing brace"), trustingLoop);
    expect(outcome.sentinelRan).toBe(true);
    expect(outcome.createdFiles).toEqual(["PWNED"]);
    expect(outcome.historyProblems).toEqual([
      expect.stringMatching(
        /^messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: \S+\. /,
      ),
    ]);
    expect(outcome.nextPromptProblem).toMatch(/^the next prompt threw BadRequestError 400: /);
  });

  it("reports a thrown error by name and status, and a history that kept part of the failed call", async () => {
    const halfKeeping: FaultMatrixLoop = async (client, messages) => {
      try {
        return await trustingLoop(client, messages, "/nonexistent");
      } catch (error) {
        messages.push({ role: "assistant", content: "half of an answer" });
        throw error;
      }
    };
    const outcome = await runFaultCase(caseNamed("a 401, never retried"), halfKeeping);
    expect(outcome.end).toEqual({ kind: "threw", errorName: "AuthenticationError", status: 401 });
    expect(outcome.turns).toBeNull();
    expect(outcome.errorMessage).toMatch(/^401 /);
    expect(outcome.historyAsBeforeFailedCall).toBe(false);
    expect(outcome.historyProblems).toEqual([]); // a final assistant message is a valid prefill...
    expect(outcome.nextPromptProblem).toBeNull(); // ...and the next prompt follows it
  });

  it("answers the steps given before the case first", async () => {
    const outcome = await runFaultCase(caseNamed("no fault: a plain answer"), trustingLoop, {
      before: [{ kind: "http_error", status: 500, retryAfterMs: 1 }],
    });
    expect(outcome).toMatchObject({ end: { kind: "stopped" }, requests: 2, historyProblems: [] });
    expect(outcome.history.at(-1)).toEqual({ role: "assistant", content: [{ type: "text", text: RECOVERED }] });
  });

  it("removes the working directory it made, and leaves one it was given", async () => {
    let made = "";
    await runFaultCase(caseNamed("no fault: a plain answer"), (client, messages, cwd) => {
      made = cwd;
      return trustingLoop(client, messages, cwd);
    });
    expect(made).not.toBe("");
    expect(existsSync(made)).toBe(false);

    const cwd = mkdtempSync(join(tmpdir(), "fault-matrix-given-"));
    dirs.push(cwd);
    const outcome = await runFaultCase(caseNamed("an unknown stop reason with a tool call, which runs"), trustingLoop, {
      cwd,
    });
    expect(outcome.createdFiles).toEqual(["RAN"]);
    expect(existsSync(join(cwd, "RAN"))).toBe(true);
  });
});
