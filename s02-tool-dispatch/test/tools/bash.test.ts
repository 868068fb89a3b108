import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { toApiTool } from "../../src/tool.ts";
import { bashTool } from "../../src/tools/bash.ts";
import { tempWorkdir } from "../temp-workdir.ts";

/** Wait until `check` holds, looking again every few milliseconds (no deadline of its own). */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("bash", () => {
  it("runs the command in the working directory and reports its exit code", async () => {
    const cwd = tempWorkdir();
    const result = await bashTool.run({ command: "pwd; exit 3" }, { cwd, signal: new AbortController().signal });
    expect(result).toEqual({ content: `${cwd}\n[exit code 3]`, isError: true });
  });

  it("offers the model one required string field, command", () => {
    expect(toApiTool(bashTool).input_schema).toMatchObject({
      type: "object",
      properties: { command: { type: "string" } },
      required: ["command"],
    });
  });

  it("kills the process group when the signal fires, and says it was interrupted", async () => {
    const cwd = tempWorkdir();
    const controller = new AbortController();
    const running = bashTool.run({ command: "echo $$ > pid; sleep 30" }, { cwd, signal: controller.signal });
    await until(() => existsSync(join(cwd, "pid")) && readFileSync(join(cwd, "pid"), "utf8").endsWith("\n"));
    const pid = Number(readFileSync(join(cwd, "pid"), "utf8"));
    controller.abort();
    const result = await running;
    expect(result.isError).toBe(true);
    expect(result.content).toContain("[interrupted; the process group was killed]");
    expect(isAlive(pid)).toBe(false);
  });

  it("kills a command that outlives bashTimeoutMs", async () => {
    const cwd = tempWorkdir();
    const result = await bashTool.run(
      { command: "sleep 30" },
      { cwd, signal: new AbortController().signal, bashTimeoutMs: 100 },
    );
    expect(result).toEqual({
      content: "(no output)\n[timed out after 0.1 s; the process group was killed]",
      isError: true,
    });
  });

  it("is not safe to run beside other tools", () => {
    expect(bashTool.concurrencySafe).toBe(false);
  });
});
