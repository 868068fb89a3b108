/**
 * s09 through the real CLI: a child process, the scripted model speaking each wire format, the
 * demo prompts answered from real tool output.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { demoBrain, ScriptedModel, startScriptedServer } from "@harness/shared";
import { afterEach, describe, expect, it } from "vitest";
import { WIRE_FORMATS } from "../src/provider-adapter.ts";
import { cleanEnv, project, runCli } from "./run-cli.ts";

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describe("pnpm s09", () => {
  it.each(WIRE_FORMATS)(
    "answers the git branch demo offline with --provider %s, from the real git output",
    async (format) => {
      const cwd = project({}, "demo-branch");
      const { code, stdout, stderr } = await runCli(
        ["--provider", format, "--cwd", cwd, "--allow", "Bash(git branch:*)", "What is the current git branch?"],
        cleanEnv(),
      );
      expect(stderr).toMatch(
        format === "anthropic" ? /offline scripted model \(no ANTHROPIC_API_KEY/ : `speaking ${format}`,
      );
      expect(stdout).toContain("bash: git branch --show-current");
      expect(stdout).toContain("The current branch is demo-branch.");
      expect(stdout).toContain("final_answer · 2 turns · 1 tool call");
      expect(code).toBe(0);
    },
    60_000,
  );

  it.each(WIRE_FORMATS)(
    "runs parallel reads and prints the AgentLoopResult as JSON with --provider %s",
    async (format) => {
      const cwd = project({ "a.txt": "alpha\n", "b.txt": "beta\n" });
      const { code, stdout } = await runCli(
        ["--offline", "--provider", format, "--cwd", cwd, "--json", "Read a.txt and b.txt"],
        cleanEnv(),
      );
      const result = JSON.parse(stdout.trim().split("\n").at(-1) ?? "");
      expect(result).toMatchObject({ stopReason: "final_answer", turns: 2, toolCalls: 2 });
      expect(result.finalText).toContain("- a.txt: 1 line, starting `alpha`");
      expect(result.finalText).toContain("- b.txt: 1 line, starting `beta`");
      expect(code).toBe(0);
    },
    60_000,
  );

  it("talks to OPENAI_BASE_URL with OPENAI_API_KEY, over real HTTP, in the Responses format", async () => {
    const model = new ScriptedModel({ brain: demoBrain });
    const server = await startScriptedServer(model);
    closers.push(server.close);
    const cwd = project({ "notes.txt": "draft\n" });
    const env = cleanEnv({ OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` });
    const { code, stdout, stderr } = await runCli(
      [
        "--provider",
        "openai-responses",
        "--cwd",
        cwd,
        "--permission-mode",
        "acceptEdits",
        'In notes.txt, replace "draft" with "final", then read it back',
      ],
      env,
    );
    expect(stderr).toContain(`Using ${server.url}/v1 (OPENAI_BASE_URL from the shell) (openai-responses)`);
    expect(readFileSync(join(cwd, "notes.txt"), "utf8")).toBe("final\n");
    expect(stdout).toContain('I replaced "draft" with "final" in notes.txt.');
    expect(model.requests.map((r) => r.api)).toEqual(["responses", "responses", "responses"]);
    expect(model.requests[0].headers.authorization).toBe("Bearer sk-test");
    expect(code).toBe(0);
  }, 60_000);

  it("refuses a wire format it does not speak, in one line, before any model call", async () => {
    const { code, stdout, stderr } = await runCli(["--provider", "gemini", "hi"], cleanEnv());
    expect(stderr).toBe(
      's09: error: --provider: "gemini" is not a wire format; use one of anthropic, openai-chat, openai-responses\n',
    );
    expect(stdout).toBe("");
    expect(code).toBe(1);
  }, 60_000);

  it("lists --provider in its help, beside every earlier option", async () => {
    const { code, stdout } = await runCli(["--help"], cleanEnv());
    expect(stdout).toMatch(/--provider P\s+the wire format: anthropic, openai-chat, openai-responses; default/);
    for (const option of ["--max-turns", "--offline", "--trace", "--permission-mode", "--allow"])
      expect(stdout).toContain(option);
    expect(code).toBe(0);
  }, 60_000);
});
