import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { historyProblems } from "@harness/shared";
import { describe, expect, it } from "vitest";
import { INTERRUPTED, interruptedResults } from "../src/interrupted-results.ts";

const asked: MessageParam = {
  role: "assistant",
  content: [
    { type: "text", text: "Two things." },
    { type: "tool_use", id: "t1", name: "bash", input: { command: "sleep 30" } },
    { type: "tool_use", id: "t2", name: "read_file", input: { path: "a" } },
  ],
};

describe("interruptedResults", () => {
  it("answers every call of a last turn left without results, in tool_use order, as errors", () => {
    const history: MessageParam[] = [{ role: "user", content: "go" }, asked];
    expect(historyProblems(history)).not.toEqual([]);
    const repair = interruptedResults(history);
    expect(repair).toEqual({
      role: "user",
      content: ["t1", "t2"].map((id) => ({
        type: "tool_result",
        tool_use_id: id,
        content: INTERRUPTED.content,
        is_error: true,
      })),
    });
    expect(historyProblems([...history, repair as MessageParam])).toEqual([]);
    expect(INTERRUPTED.content).toMatch(/^Error \[interrupted\]: .*not known/);
  });

  it("leaves a history that needs nothing alone", () => {
    expect(interruptedResults([])).toBeUndefined();
    expect(interruptedResults([{ role: "user", content: "go" }])).toBeUndefined();
    expect(
      interruptedResults([
        { role: "user", content: "go" },
        { role: "assistant", content: [{ type: "text", text: "Done." }] },
      ]),
    ).toBeUndefined();
  });
});
