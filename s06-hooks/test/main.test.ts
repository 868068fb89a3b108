/**
 * s06 through the real CLI: a child process, the scripted model (--offline), a home of its own.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { cliRunner } from "@harness/testkit";
import { describe, expect, it } from "vitest";

const { cleanEnv, project, runCli } = cliRunner("s06-hooks");

const preToolUse = (command: string) =>
  JSON.stringify({
    hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command }] }] },
  });

describe("pnpm s06", () => {
  it("blocks a bash call when a PreToolUse hook exits 2, and the model reads the hook's stderr", async () => {
    const cwd = project({
      ".harness/settings.local.json": preToolUse("echo 'no writes on Fridays' >&2; exit 2"),
    });
    const { code, stdout } = await runCli(
      ["--offline", "--cwd", cwd, "--allow", "Bash(touch:*)", "Run `touch made.txt`"],
      cleanEnv(),
    );
    expect(code).toBe(0);
    expect(() => readFileSync(join(cwd, "made.txt"))).toThrow();
    expect(stdout).toContain("no writes on Fridays");
    // the model's second turn reads the refusal: every tool_use was answered
    expect(stdout).toContain("Error [denied]: a PreToolUse hook blocked this call: no writes on Fridays");
    expect(stdout).toContain("final_answer · 2 turns · 1 tool call");
  }, 60_000);

  it("does not block when a PreToolUse hook exits 1: the call runs and the answer is given", async () => {
    const cwd = project({ ".harness/settings.local.json": preToolUse("echo oops >&2; exit 1") });
    const { code, stdout, stderr } = await runCli(
      ["--offline", "--cwd", cwd, "--allow", "Bash(touch:*)", "Run `touch made.txt`"],
      cleanEnv(),
    );
    expect(code).toBe(0);
    expect(readFileSync(join(cwd, "made.txt"), "utf8")).toBe("");
    expect(stdout).not.toContain("did not run");
    expect(`${stdout}${stderr}`).toContain("hook");
  }, 60_000);

  it("prints each hook that cannot be loaded on one line, and runs on", async () => {
    const cwd = project({
      ".harness/settings.local.json": JSON.stringify({ hooks: { PreToolUse: [{ hooks: [{ type: "command" }] }] } }),
    });
    const { code, stderr } = await runCli(["--offline", "--cwd", cwd, "hi"], cleanEnv());
    expect(code).toBe(0);
    expect(stderr).toMatch(/^s06: hooks: .*settings\.local\.json/m);
  }, 60_000);
});
