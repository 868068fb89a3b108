/**
 * The fault matrix on every wire format: each case's script goes out in the format's own wire
 * (an SSE error as Chat's error payload or the Responses `error` event, a cut where the same part
 * of the reply would be, a missing `message_stop` as a missing finish reason or
 * `response.completed`), through the format's real SDK and adapter, into this chapter's loop.
 * The matrix runs in bypassPermissions, as s05's does, so no refusal can hide a partial call.
 */
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { isValidHistory, type ScriptedModel } from "@harness/shared";
import {
  FAULT_CASES,
  type FaultCase,
  type FaultExpectation,
  type FaultMatrixLoop,
  faultCaseMismatches,
  runFaultCase,
} from "@harness/testkit";
import { describe, expect, it } from "vitest";
import { agentLoop } from "../src/agent-loop.ts";
import { scriptedAdapter } from "../src/create-adapter.ts";
import { type ProviderAdapter, WIRE_FORMATS, type WireFormat } from "../src/provider-adapter.ts";

/**
 * Where a format meets a fault differently from the Messages API, and why.
 * The `openai` SDK names a 529 by its class of status; the Responses API has no finish reason of
 * its own for "unknown": a reply that did not complete is `incomplete`, which never runs a tool.
 */
const DIFFERENCES: Partial<Record<WireFormat, Record<string, FaultExpectation>>> = {
  "openai-chat": {
    "a 529 until the SDK's retries run out": {
      end: { kind: "threw", errorName: "InternalServerError", status: 529 },
      requests: 3,
    },
  },
  "openai-responses": {
    "a 529 until the SDK's retries run out": {
      end: { kind: "threw", errorName: "InternalServerError", status: 529 },
      requests: 3,
    },
    "an unknown stop reason without a tool call": { end: { kind: "stopped", stopReason: "max_tokens" }, requests: 1 },
    "an unknown stop reason with a tool call, which runs": {
      end: { kind: "stopped", stopReason: "max_tokens" },
      requests: 1,
    },
  },
};

/** The case with this format's expectation for a streaming loop. */
function forFormat(fault: FaultCase, format: WireFormat): FaultCase {
  const different = DIFFERENCES[format]?.[fault.name];
  return different ? { ...fault, expected: { ...fault.expected, streaming: different } } : fault;
}

const loop: FaultMatrixLoop<ProviderAdapter> = (adapter, messages, cwd) =>
  agentLoop(adapter, messages, {
    model: "test-model",
    cwd,
    bashTimeoutMs: 10_000,
    permissionMode: "bypassPermissions",
  });

/** What a history looks like to the scripted model, whatever the format: every content a list of blocks. */
function blocks(messages: readonly MessageParam[]): unknown {
  return messages.map((m) => ({
    role: m.role,
    content: typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content,
  }));
}

describe.each(WIRE_FORMATS)("the loop on %s under the fault matrix", (format) => {
  it.each(FAULT_CASES.map((fault) => [fault.name, fault] as const))(
    "meets %s as the matrix says, runs no partial tool call, keeps a valid history",
    async (_, fault) => {
      let model: ScriptedModel | undefined;
      const outcome = await runFaultCase(forFormat(fault, format), loop, {
        connect: (scripted, maxRetries) => {
          model ??= scripted; // the case's own model (the next prompt's comes second)
          return scriptedAdapter(format, scripted, { maxRetries, retryDelayMs: 1 });
        },
      });
      const mismatches = faultCaseMismatches(forFormat(fault, format), "streaming", outcome);
      if (outcome.end.kind === "threw" && format !== "anthropic") {
        // the request is read back into the course's shape, so compare block by block
        const sent = model?.requests.at(-1)?.body.messages ?? [];
        const same = JSON.stringify(blocks(sent)) === JSON.stringify(blocks(outcome.history.slice(0, sent.length)));
        expect(same && outcome.history.length === sent.length).toBe(true);
        expect(mismatches.filter((m) => m !== "kept part of the failed call in the history")).toEqual([]);
      } else {
        expect(mismatches).toEqual([]);
      }
      expect(isValidHistory(outcome.history)).toBe(true);
    },
  );
});
