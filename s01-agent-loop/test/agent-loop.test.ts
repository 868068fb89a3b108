import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { isValidHistory, reply, ScriptedModel, text, textReply, toolUse } from "@harness/shared";
import { describe, expect, it } from "vitest";
import { agentLoop } from "../src/agent-loop.ts";

describe("agentLoop", () => {
  it("answers in one turn without tools", async () => {
    const model = new ScriptedModel({ script: [textReply("Hello.")] });
    const messages: MessageParam[] = [{ role: "user", content: "hi" }];
    const result = await agentLoop(model.client(), messages, { model: "m", cwd: process.cwd() });
    expect(result).toMatchObject({ stopReason: "final_answer", turns: 1, toolCalls: 0, finalText: "Hello." });
    expect(isValidHistory(messages)).toBe(true);
  });

  it("runs a tool, sends its result, then answers", async () => {
    const model = new ScriptedModel({
      script: [reply([text("checking"), toolUse("bash", { command: "echo hi" })]), textReply("It said hi.")],
    });
    const messages: MessageParam[] = [{ role: "user", content: "say hi" }];
    const result = await agentLoop(model.client(), messages, { model: "m", cwd: process.cwd() });
    expect(result).toMatchObject({ stopReason: "final_answer", turns: 2, toolCalls: 1 });
    const second = model.requests[1].body.messages.at(-1);
    expect(second).toMatchObject({
      role: "user",
      content: [{ type: "tool_result", content: "hi\n[exit code 0]", is_error: false }],
    });
    expect(isValidHistory(messages)).toBe(true);
  });
});
