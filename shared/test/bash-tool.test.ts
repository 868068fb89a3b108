import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { bashToolDefinition, runBashTool } from "../src/bash-tool.ts";

const cwd = realpathSync(mkdtempSync(join(tmpdir(), "bash-tool-")));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

describe("bashToolDefinition", () => {
  it("asks for one required string command", () => {
    expect(bashToolDefinition.name).toBe("bash");
    expect(bashToolDefinition.input_schema).toEqual({
      type: "object",
      properties: { command: { type: "string", description: expect.any(String) } },
      required: ["command"],
    });
  });

  it("tells the model what it cannot rely on: a fresh shell, closed stdin, cut output", () => {
    expect(bashToolDefinition.description).toMatch(/fresh shell/);
    expect(bashToolDefinition.description).toMatch(/stdin is closed/);
    expect(bashToolDefinition.description).toMatch(/head and tail/);
  });
});

describe("runBashTool", () => {
  it("runs the command the model sent", async () => {
    const result = await runBashTool({ command: "echo hi" }, { cwd });
    expect(result).toEqual({ content: "hi\n[exit code 0]", isError: false });
  });

  it.each([
    ["no command", {}],
    ["a numeric command", { command: 42 }],
    ["a list of commands", { command: ["ls", "pwd"] }],
    ["a null command", { command: null }],
  ])("returns an invalid-arguments error for %s", async (_what, input) => {
    const result = await runBashTool(input as Record<string, unknown>, { cwd });
    expect(result).toEqual({ content: 'Error: invalid arguments: "command" must be a string.', isError: true });
  });

  it("ignores input fields it does not know", async () => {
    const result = await runBashTool({ command: "echo ok", timeout: 5 }, { cwd });
    expect(result.content).toBe("ok\n[exit code 0]");
  });
});
