/**
 * The fault matrix on the OpenAI wire formats: where a format meets a fault differently from the
 * Messages API, and why. The `openai` SDK names a 529 by its class of status; a Chat call without
 * an id gets one made (servers do send such calls), so it is answered; the Responses API
 * has no finish reason of its own for "unknown": a reply that did not complete is `incomplete`,
 * which never runs a tool.
 */
import type { FaultCase, FaultExpectation } from "./fault-matrix.ts";

/** The wire formats a loop may speak (s09's `--provider` values). */
export type FaultMatrixFormat = "anthropic" | "openai-chat" | "openai-responses";

const RETRIED_529: FaultExpectation = {
  end: { kind: "threw", errorName: "InternalServerError", status: 529 },
  requests: 3,
};

/** The streaming expectations that differ per format, by case name. */
export const FORMAT_DIFFERENCES: Partial<Record<FaultMatrixFormat, Record<string, FaultExpectation>>> = {
  "openai-chat": {
    "a 529 until the SDK's retries run out": RETRIED_529,
    // Chat servers do send calls without an id (vLLM, sglang): the adapter makes one, so the call
    // is answered (here with an input error: the scripted wire sends it without its arguments)
    "a tool_use block without an id": { end: { kind: "stopped", stopReason: "final_answer" }, requests: 2 },
  },
  "openai-responses": {
    "a 529 until the SDK's retries run out": RETRIED_529,
    "an unknown stop reason without a tool call": { end: { kind: "stopped", stopReason: "max_tokens" }, requests: 1 },
    "an unknown stop reason with a tool call, which runs": {
      end: { kind: "stopped", stopReason: "max_tokens" },
      requests: 1,
    },
  },
};

/** `fault` with `format`'s expectation for a streaming loop. */
export function faultCaseOn(fault: FaultCase, format: FaultMatrixFormat): FaultCase {
  const different = FORMAT_DIFFERENCES[format]?.[fault.name];
  return different ? { ...fault, expected: { ...fault.expected, streaming: different } } : fault;
}
