/**
 * s05's loop on the scripted model: every call passes the check, a refused call is a result the
 * model reads, the loop goes on, the history stays valid, and the trace records what happened.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { MessageParam, ToolResultBlockParam } from "@anthropic-ai/sdk/resources/messages";
import { type IterationRecord, readTrace, TraceWriter } from "@harness/s04-tracing";
import { reply, ScriptedModel, type ScriptStep, text, textReply, toolUse } from "@harness/scripted-model";
import { appendUserText, isValidHistory } from "@harness/shared";
import { describe, expect, it } from "vitest";
import { type AgentLoopOptions, agentLoop } from "../src/agent-loop.ts";
import { settingsFor, tempProject } from "./temp-project.ts";

/** The tool results of the user message after the assistant turn `n` (from 0). */
function resultsAfter(messages: MessageParam[], n: number): ToolResultBlockParam[] {
  const assistant = messages.map((m, i) => [m, i] as const).filter(([m]) => m.role === "assistant")[n][1];
  return messages[assistant + 1].content as ToolResultBlockParam[];
}

async function run(
  script: ScriptStep[],
  permissions: Record<string, unknown> | undefined,
  files: Record<string, string>,
  options: Partial<AgentLoopOptions> = {},
) {
  const { cwd, settings } = settingsFor(permissions, files);
  const model = new ScriptedModel({ script });
  const messages: MessageParam[] = [];
  appendUserText(messages, "go");
  const result = await agentLoop(model.client(), messages, {
    model: "test-model",
    cwd,
    permissions: settings,
    ...options,
  });
  return { cwd, model, messages, result, settings };
}

describe("agentLoop with permissions", () => {
  it("answers a refused call with why, goes on, and the model reads the reason", async () => {
    const { cwd, model, messages, result } = await run(
      [reply([toolUse("bash", { command: "git status; rm -rf build" })]), textReply("I left build alone.")],
      { deny: ["Bash(rm:*)"] },
      { "build/a.o": "x" },
    );
    expect(result).toMatchObject({ stopReason: "final_answer", turns: 2, finalText: "I left build alone." });
    expect(existsSync(join(cwd, "build", "a.o"))).toBe(true);
    const [refused] = resultsAfter(messages, 0);
    expect(refused).toMatchObject({
      is_error: true,
      content: expect.stringMatching(/^Error \[denied\]: denied by rule Bash\(rm:\*\)/),
    });
    // the second request carried the refusal to the model
    expect(JSON.stringify(model.requests[1].body.messages)).toContain("Error [denied]");
    expect(isValidHistory(messages)).toBe(true);
  });

  it("runs the others of a batch when one is refused, every tool_use answered once, in order", async () => {
    const { messages } = await run(
      [
        reply([
          text("Reading three."),
          toolUse("read_file", { path: "a.txt" }, "toolu_a"),
          toolUse("read_file", { path: ".env" }, "toolu_env"),
          toolUse("read_file", { path: "c.txt" }, "toolu_c"),
        ]),
        textReply("Done."),
      ],
      undefined,
      { "a.txt": "A\n", ".env": "KEY=secret\n", "c.txt": "C\n" },
    );
    const results = resultsAfter(messages, 0);
    expect(results.map((r) => [r.tool_use_id, r.is_error ?? false])).toEqual([
      ["toolu_a", false],
      ["toolu_env", true],
      ["toolu_c", false],
    ]);
    expect(JSON.stringify(messages)).not.toContain("KEY=secret");
    expect(isValidHistory(messages)).toBe(true);
  });

  it("asks through the ask option, and without one answers no and names the rule that would allow it", async () => {
    const script = () => [reply([toolUse("bash", { command: "touch made" })]), textReply("ok")];
    const asked: string[] = [];
    const yes = await run(
      script(),
      undefined,
      {},
      {
        ask: async (request) => {
          asked.push(request.question);
          return "yes";
        },
      },
    );
    expect(existsSync(join(yes.cwd, "made"))).toBe(true);
    expect(asked).toEqual([
      "the simple command `touch made` asks (in default mode a command asks). Run it? (always allows Bash(touch made))",
    ]);
    const nobody = await run(script(), undefined, {});
    expect(existsSync(join(nobody.cwd, "made"))).toBe(false);
    expect(resultsAfter(nobody.messages, 0)[0].content).toMatch(/The rule that would allow it: Bash\(touch made\)\.$/);
  });

  it("in plan mode, changes nothing and tells the model it is planning", async () => {
    const { cwd, messages } = await run(
      [
        reply([toolUse("edit_file", { path: "notes.txt", old_string: "draft", new_string: "final" })]),
        textReply("Plan: replace draft with final."),
      ],
      undefined,
      { "notes.txt": "draft\n" },
      { permissionMode: "plan", ask: async () => "yes" },
    );
    expect(readFileSync(join(cwd, "notes.txt"), "utf8")).toBe("draft\n");
    expect(resultsAfter(messages, 0)[0].content).toMatch(/^Error \[denied\]: refused: you are in plan mode/);
  });

  it("takes the mode from the settings when no permissionMode is given", async () => {
    const { cwd } = await run(
      [reply([toolUse("write_file", { path: "a.txt", content: "x" })]), textReply("ok")],
      { defaultMode: "acceptEdits" },
      {},
    );
    expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("x");
  });

  it("keeps the default denies with no settings given", async () => {
    const cwd = tempProject();
    const model = new ScriptedModel({ script: [reply([toolUse("bash", { command: "cat .env" })]), textReply("ok")] });
    const messages: MessageParam[] = [];
    appendUserText(messages, "go");
    await agentLoop(model.client(), messages, { model: "m", cwd, permissionMode: "bypassPermissions" });
    expect(resultsAfter(messages, 0)[0].content).toMatch(/^Error \[denied\]: denied by the default rule Read/);
  });

  it("records the refusal in the trace, as any other result", async () => {
    const dir = tempProject();
    const writer = new TraceWriter("perm", dir, []);
    await run(
      [reply([toolUse("bash", { command: "rm -rf build" })]), textReply("ok")],
      { deny: ["Bash(rm:*)"] },
      {},
      { trace: writer },
    );
    const [first] = readTrace(writer.path).records.filter((r) => r.type === "iteration") as IterationRecord[];
    expect(JSON.stringify(first)).toContain("Error [denied]: denied by rule Bash(rm:*)");
  });
});
