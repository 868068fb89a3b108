import { describe, expect, it } from "vitest";
import { toolError, toolOutput, toResultBlock } from "../src/tool-result.ts";

describe("toolOutput and toolError", () => {
  it("makes a successful result", () => {
    expect(toolOutput("done")).toEqual({ content: "done", isError: false });
  });

  it("makes a failed result", () => {
    expect(toolError("Error: no such file")).toEqual({ content: "Error: no such file", isError: true });
  });
});

describe("toResultBlock", () => {
  it("answers its call's id, with the result's text and error flag", () => {
    const call = { id: "toolu_1", name: "bash", input: { command: "false" } };
    expect(toResultBlock(call, toolError("[exit code 1]"))).toEqual({
      type: "tool_result",
      tool_use_id: "toolu_1",
      content: "[exit code 1]",
      is_error: true,
    });
  });
});
