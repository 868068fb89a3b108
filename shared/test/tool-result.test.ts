import { describe, expect, it } from "vitest";
import { toolError, toolOutput } from "../src/tool-result.ts";

describe("toolOutput and toolError", () => {
  it("makes a successful result", () => {
    expect(toolOutput("done")).toEqual({ content: "done", isError: false });
  });

  it("makes a failed result", () => {
    expect(toolError("Error: no such file")).toEqual({ content: "Error: no such file", isError: true });
  });
});
