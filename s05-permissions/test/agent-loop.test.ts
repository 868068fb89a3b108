/**
 * s05's loop on the scripted model, with the permission gate built as main.ts builds it (the rules
 * and the mode read from the options and the settings, `permissionGate` handed in as `runCall`):
 * every call passes the gate, a refused call is a result the model reads, the loop goes on, the
 * history stays valid, and s04's trace records what happened.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { MessageParam, ToolResultBlockParam } from "@anthropic-ai/sdk/resources/messages";
import { parseCliArgs } from "@harness/cli";
import type { CallRunner } from "@harness/s02-tool-dispatch";
import { sendStreamed } from "@harness/s03-streaming";
import { type IterationRecord, readTrace, TraceRecorder, TraceWriter } from "@harness/s04-tracing";
import { reply, ScriptedModel, type ScriptStep, text, textReply, toolUse } from "@harness/scripted-model";
import { appendUserText, historyProblems } from "@harness/shared";
import { describe, expect, it } from "vitest";
import { type AgentLoopOptions, agentLoop } from "../src/agent-loop.ts";
import { PERMISSION_FLAGS, readPermissions } from "../src/flags.ts";
import { type AskPermission, permissionGate } from "../src/permission-gate.ts";
import { settingsFor, tempProject } from "./temp-project.ts";

/** The tool results of the user message after the assistant turn `n` (from 0). */
function resultsAfter(messages: MessageParam[], n: number): ToolResultBlockParam[] {
  const assistant = messages.map((m, i) => [m, i] as const).filter(([m]) => m.role === "assistant")[n][1];
  return messages[assistant + 1].content as ToolResultBlockParam[];
}

/** The gate main.ts builds for a project in `cwd`, once trusted, and these options (`--permission-mode M`, `--allow R`, ...). */
function gateFor(cwd: string, argv: string[] = [], ask?: AskPermission): CallRunner {
  const { settings, mode } = readPermissions(parseCliArgs([...argv, "go"], { cwd }, [...PERMISSION_FLAGS])).trusted;
  return permissionGate({ settings, mode, ask });
}

/** One prompt through s05's loop in a project holding `files` and these settings, the gate in front of its calls. */
async function run(
  script: ScriptStep[],
  permissions: Record<string, unknown> | undefined,
  files: Record<string, string>,
  { argv, ask, ...options }: Partial<AgentLoopOptions> & { argv?: string[]; ask?: AskPermission } = {},
) {
  const { cwd } = settingsFor(permissions, files);
  const model = new ScriptedModel({ script });
  const messages: MessageParam[] = [];
  appendUserText(messages, "go");
  const runCall = gateFor(cwd, argv, ask);
  const result = await agentLoop(sendStreamed(model.client()), messages, {
    model: "test-model",
    cwd,
    runCall,
    ...options,
  });
  return { cwd, model, messages, result };
}

describe("agentLoop with the permission gate", () => {
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
    expect(historyProblems(messages)).toEqual([]);
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
    expect(historyProblems(messages)).toEqual([]);
  });

  it("asks through the gate's ask, and without one answers no and names the rule that would allow it", async () => {
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
      { argv: ["--permission-mode", "plan"], ask: async () => "yes" },
    );
    expect(readFileSync(join(cwd, "notes.txt"), "utf8")).toBe("draft\n");
    expect(resultsAfter(messages, 0)[0].content).toMatch(/^Error \[denied\]: refused: you are in plan mode/);
  });

  it("takes the mode from the settings when no --permission-mode is given", async () => {
    const { cwd } = await run(
      [reply([toolUse("write_file", { path: "a.txt", content: "x" })]), textReply("ok")],
      { defaultMode: "acceptEdits" },
      {},
    );
    expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("x");
  });

  it("keeps the default denies with no settings given, in every mode", async () => {
    const cwd = tempProject({ ".env": "KEY=secret\n" });
    const model = new ScriptedModel({ script: [reply([toolUse("bash", { command: "cat .env" })]), textReply("ok")] });
    const messages: MessageParam[] = [];
    appendUserText(messages, "go");
    const runCall = gateFor(cwd, ["--permission-mode", "bypassPermissions"]);
    await agentLoop(sendStreamed(model.client()), messages, { model: "m", cwd, runCall });
    expect(resultsAfter(messages, 0)[0].content).toMatch(/^Error \[denied\]: denied by the default rule Read/);
  });

  it("runs every call with s02's dispatch when no runCall is given", async () => {
    const cwd = tempProject();
    const model = new ScriptedModel({ script: [reply([toolUse("bash", { command: "touch made" })]), textReply("ok")] });
    const messages: MessageParam[] = [{ role: "user", content: "go" }];
    await agentLoop(sendStreamed(model.client()), messages, { model: "m", cwd });
    expect(existsSync(join(cwd, "made"))).toBe(true);
    expect(resultsAfter(messages, 0)[0]).toMatchObject({ is_error: false });
  });

  it("records the refusal in the trace, as any other result", async () => {
    const writer = new TraceWriter("perm", tempProject(), []);
    const recorder = new TraceRecorder(writer);
    await run(
      [reply([toolUse("bash", { command: "rm -rf build" })]), textReply("ok")],
      { deny: ["Bash(rm:*)"] },
      {},
      {
        emit: recorder.record,
      },
    );
    const [first] = readTrace(writer.path).records.filter((r) => r.type === "iteration") as IterationRecord[];
    expect(first.toolCalls[0]).toMatchObject({
      name: "bash",
      isError: true,
      result: expect.stringMatching(/^Error \[denied\]: denied by rule Bash\(rm:\*\)/),
    });
  });
});
