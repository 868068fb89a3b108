import { describe, expect, it } from "vitest";
import { reply, text, textReply, toolUse } from "../src/script.ts";

describe("script builders", () => {
  it("builds a text block", () => {
    expect(text("hi")).toEqual({ type: "text", text: "hi" });
  });

  it("builds a tool call, with or without an id", () => {
    expect(toolUse("bash", { command: "ls" })).toEqual({
      type: "tool_use",
      name: "bash",
      input: { command: "ls" },
      id: undefined,
    });
    expect(toolUse("bash", {}, "toolu_1")).toMatchObject({ id: "toolu_1" });
  });

  it("builds a reply with its options", () => {
    expect(reply([text("a")], { stopReason: "max_tokens", delayMs: 5 })).toEqual({
      kind: "reply",
      content: [{ type: "text", text: "a" }],
      stopReason: "max_tokens",
      delayMs: 5,
    });
  });

  it("builds a one-text reply", () => {
    expect(textReply("done")).toEqual({ kind: "reply", content: [{ type: "text", text: "done" }] });
  });
});
