/**
 * Histories for the tests: a builder for the usual shapes, and fast-check's arbitrary of valid
 * histories (prompts, answers, turns of one to three tool calls, prompts typed after tool results,
 * results of any size), each ending as the loop leaves it before a model call: with a user message.
 */
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import fc from "fast-check";

/** One step after the opening prompt: the model answers (then the user prompts), or calls tools. */
export interface Step {
  kind: "answer" | "tools";
  calls: number;
  size: number;
  /** After a tools step: the user types a prompt into the results' message. */
  promptWithResults: boolean;
  /** A prompt as a string, or as a text block. */
  asBlock: boolean;
}

/** A valid history from its steps; prompts are "prompt N", results N repeated characters. */
export function historyFrom(steps: readonly Step[], opening = "prompt 0", ids = "toolu"): MessageParam[] {
  let n = 0;
  let prompts = 0;
  const prompt = (asBlock: boolean): MessageParam["content"] => {
    const text = prompts++ === 0 ? opening : `prompt ${prompts - 1}`;
    return asBlock ? [{ type: "text", text }] : text;
  };
  const messages: MessageParam[] = [{ role: "user", content: prompt(false) }];
  for (const step of steps) {
    if (step.kind === "answer") {
      messages.push({ role: "assistant", content: [{ type: "text", text: `answer ${n++}` }] });
      messages.push({ role: "user", content: prompt(step.asBlock) });
      continue;
    }
    const calls = Array.from({ length: step.calls }, () => `${ids}_${n++}`);
    messages.push({
      role: "assistant",
      content: calls.map((id) => ({ type: "tool_use" as const, id, name: "bash", input: { command: `echo ${id}` } })),
    });
    const results = calls.map((id) => ({
      type: "tool_result" as const,
      tool_use_id: id,
      content: "r".repeat(step.size),
    }));
    const typed = step.promptWithResults ? [{ type: "text" as const, text: `prompt ${prompts++}` }] : [];
    messages.push({ role: "user", content: [...results, ...typed] });
  }
  return messages;
}

/** fast-check's steps of a valid history. */
export const steps = fc.array(
  fc.record({
    kind: fc.constantFrom<"answer" | "tools">("answer", "tools", "tools"),
    calls: fc.integer({ min: 1, max: 3 }),
    size: fc.integer({ min: 0, max: 3000 }),
    promptWithResults: fc.boolean(),
    asBlock: fc.boolean(),
  }),
  { minLength: 0, maxLength: 30 },
);

/** A tools step of `calls` results of `size` characters each. */
export const tools = (calls: number, size: number): Step => ({
  kind: "tools",
  calls,
  size,
  promptWithResults: false,
  asBlock: false,
});

/** An answer step, then a prompt. */
export const answer: Step = { kind: "answer", calls: 0, size: 0, promptWithResults: false, asBlock: false };
