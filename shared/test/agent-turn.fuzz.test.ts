/**
 * Property-based fuzzing of the two functions every loop trusts with raw provider output:
 * AgentTurn.fromResponse and stopReasonFor, over generated responses (random block mixes, stop
 * reasons, missing or extra fields, huge strings).
 */
import type { Message, MessageParam } from "@anthropic-ai/sdk/resources/messages";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AgentTurn } from "../src/agent-turn.ts";
import { historyProblems } from "../src/history-problems.ts";
import { stopReasonFor } from "../src/stop-reason-for.ts";

const anything = fc.anything({ maxDepth: 2 });
const stopReason = fc.oneof(
  fc.constantFrom(
    "end_turn",
    "tool_use",
    "max_tokens",
    "model_context_window_exceeded",
    "pause_turn",
    "refusal",
    "stop_sequence",
  ),
  fc.string(),
  fc.constant(null),
  fc.constant(undefined),
  anything,
);
const text = fc.oneof(
  fc.string(),
  fc.string({ unit: "binary" }),
  fc.constant(""),
  fc.constantFrom(" ", "\n\n", "\t \r\n"),
  fc.nat(1000).map((n) => `${"é".repeat(200_000)}${n}`),
);
const block = fc.oneof(
  fc.record({ type: fc.constant("text"), text: fc.oneof(text, anything) }, { requiredKeys: ["type"] }),
  fc.record(
    {
      type: fc.constant("tool_use"),
      id: fc.oneof(fc.string(), anything),
      name: fc.oneof(fc.constantFrom("bash", "read_file"), fc.string(), anything),
      input: fc.oneof(fc.dictionary(fc.string(), anything), fc.string(), anything),
      caller: anything,
    },
    { requiredKeys: ["type"] },
  ),
  fc.record({ type: fc.constant("thinking"), thinking: fc.string(), signature: fc.string() }),
  fc.record({ type: fc.string(), extra: anything }),
  anything,
);
const response = fc.record(
  {
    id: fc.string(),
    content: fc.oneof(fc.array(block, { maxLength: 8 }), anything),
    stop_reason: stopReason,
    usage: fc.oneof(fc.record({ input_tokens: anything, output_tokens: anything }), anything),
    stop_details: anything,
  },
  { requiredKeys: [] },
);

const asMessage = (value: unknown) => value as Message;

describe("AgentTurn.fromResponse (fuzzed)", () => {
  it("never throws and never yields a tool call without an id and a name", () => {
    fc.assert(
      fc.property(fc.oneof(response, anything), (raw) => {
        const turn = AgentTurn.fromResponse(asMessage(raw));
        for (const call of turn.toolCalls) {
          expect(typeof call.id).toBe("string");
          expect(call.id).not.toBe("");
          expect(typeof call.name).toBe("string");
          expect(call.name).not.toBe("");
          expect(typeof call.input).toBe("object");
        }
        expect(turn.historyContent.length).toBeGreaterThan(0);
        expect(Number.isFinite(turn.usage.inputTokens) && Number.isFinite(turn.usage.outputTokens)).toBe(true);
      }),
      { numRuns: 600 },
    );
  });

  it("gives equal turns for equal responses", () => {
    fc.assert(
      fc.property(response, (raw) => {
        const a = AgentTurn.fromResponse(asMessage(structuredClone(raw)));
        const b = AgentTurn.fromResponse(asMessage(structuredClone(raw)));
        expect(b).toEqual(a);
      }),
      { numRuns: 300 },
    );
  });

  it("answers every tool call it reports in the history it returns", () => {
    fc.assert(
      fc.property(response, (raw) => {
        const turn = AgentTurn.fromResponse(asMessage(raw));
        const ids = turn.historyContent.filter((b) => b.type === "tool_use").map((b) => (b as { id: string }).id);
        expect(ids).toEqual(turn.toolCalls.map((c) => c.id));
      }),
      { numRuns: 300 },
    );
  });
});

describe("AgentTurn.fromResponse and historyProblems (fuzzed)", () => {
  it("gives history content the API accepts: the turn and a result per call make a valid history", () => {
    fc.assert(
      fc.property(response, (raw) => {
        const turn = AgentTurn.fromResponse(asMessage(raw));
        const history: MessageParam[] = [
          { role: "user", content: "the prompt" },
          { role: "assistant", content: [...turn.historyContent] },
        ];
        if (turn.toolCalls.length > 0) {
          history.push({
            role: "user",
            content: turn.toolCalls.map((c) => ({ type: "tool_result" as const, tool_use_id: c.id, content: "ok" })),
          });
        }
        expect(historyProblems(history)).toEqual([]);
      }),
      { numRuns: 600 },
    );
  });
});

describe("stopReasonFor (fuzzed)", () => {
  it("matches the COURSE.md table for any turn and never throws", () => {
    fc.assert(
      fc.property(response, (raw) => {
        const turn = AgentTurn.fromResponse(asMessage(raw));
        const decision = stopReasonFor(turn);
        const stop = turn.providerStopReason;
        if (stop === "max_tokens" || stop === "model_context_window_exceeded") expect(decision).toBe("max_tokens");
        else if (stop === "refusal") expect(decision).toBe("final_answer");
        else if (turn.toolCalls.length > 0) expect(decision).toBeNull();
        else if (stop === "pause_turn") expect(decision).toBeNull();
        else expect(decision).toBe("final_answer");
      }),
      { numRuns: 600 },
    );
  });
});

describe("AgentTurn.fromResponse on a counterexample fast-check found", () => {
  it("does not throw on a stop reason that cannot be turned into a string", () => {
    const turn = AgentTurn.fromResponse(asMessage({ content: [], stop_reason: [{ toString: 0 }] }));
    expect(turn.providerStopReason).toBeNull();
    expect(turn.historyContent).toEqual([{ type: "text", text: '(no content; the model stopped with "null")' }]);
  });
});
