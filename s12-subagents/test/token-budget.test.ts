import type { MessageEvent } from "@harness/s07-sessions";
import { AgentTurn, type LoopEvent } from "@harness/shared";
import { describe, expect, it } from "vitest";
import { countChildren, TokenBudget, tokensOf } from "../src/token-budget.ts";

/** A turn that used `input` and `output` tokens; with a tool call unless `final`. */
function turn(input: number, output: number, final = false): LoopEvent {
  const content = final
    ? [{ type: "text" as const, text: "done", citations: null }]
    : [{ type: "tool_use" as const, id: "toolu_1", name: "glob", input: { pattern: "*" } }];
  const response = {
    id: "msg_1",
    type: "message" as const,
    role: "assistant" as const,
    model: "m",
    content,
    stop_reason: final ? ("end_turn" as const) : ("tool_use" as const),
    stop_sequence: null,
    usage: { input_tokens: input, output_tokens: output },
  };
  // biome-ignore lint/suspicious/noExplicitAny: a minimal Message for the turn
  return { type: "turn", turn: AgentTurn.fromResponse(response as any), response: response as any };
}

describe("TokenBudget", () => {
  it("counts every input token, cache reads and writes included, and every output token", () => {
    expect(
      tokensOf({ inputTokens: 10, outputTokens: 5, cacheReadInputTokens: 100, cacheCreationInputTokens: 20 }),
    ).toBe(135);
  });

  it("charges a child's tokens to every budget above it, and stops a child when one above is spent", () => {
    const parent = new TokenBudget(1000);
    const child = parent.child(5000);
    child.charge({ inputTokens: 900, outputTokens: 50 });
    expect(parent.spent).toBe(950);
    expect(child.left).toBe(50);
  });

  it("stops the child only where its loop would call the model again: at the message that answers its calls", () => {
    const budget = new TokenBudget().child(100);
    let stopped = 0;
    const watch = budget.watch(() => stopped++);
    watch(turn(90, 20));
    expect(stopped).toBe(0); // the calls still get their results
    const answer: MessageEvent = { type: "message", message: { role: "user", content: [] } };
    watch(answer);
    expect(stopped).toBe(1);
  });

  it("lets a final answer stand even past the budget", () => {
    const budget = new TokenBudget().child(10);
    let stopped = 0;
    budget.watch(() => stopped++)(turn(90, 20, true));
    expect(stopped).toBe(0);
  });

  it("adds the children's tokens to the parent's result at its end, counting from each run's first call", () => {
    const children = new TokenBudget();
    const listen = countChildren(children);
    children.charge({ inputTokens: 500, outputTokens: 5 }); // a run before: forgotten at the next first call
    const first = { type: "model_call", turnNumber: 1, request: {} } as LoopEvent;
    listen(first);
    children.charge({ inputTokens: 70, outputTokens: 7 });
    const result = {
      stopReason: "final_answer",
      turns: 1,
      toolCalls: 1,
      finalText: "",
      usage: { inputTokens: 30, outputTokens: 3 },
    };
    listen({ type: "end", result } as LoopEvent);
    expect(result.usage).toEqual({ inputTokens: 100, outputTokens: 10 });
  });
});
