/**
 * Where the chapter starts (src/one-call.ts): one model call and no loop. The model asks for a
 * command; nothing runs it, the "answer" is what the model wrote before asking, and the history
 * it leaves cannot be sent again. The text's "What changed" is the diff from this to agentLoop.
 */
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { reply, ScriptedModel, text, textReply, toolUse } from "@harness/scripted-model";
import { appendUserText, historyProblems } from "@harness/shared";
import { afterEach, describe, expect, it } from "vitest";
import { agentLoop } from "../src/agent-loop.ts";
import { oneCall } from "../src/one-call.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function workDir(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "s01-one-call-")));
  dirs.push(dir);
  return dir;
}

/** The model asks for a command, then (if it is ever asked again) answers from its output. */
function branchModel(): ScriptedModel {
  return new ScriptedModel({
    script: [
      reply([text("I'll check with git."), toolUse("bash", { command: "echo trunk" }, "toolu_branch")]),
      textReply("The current branch is trunk."),
    ],
  });
}

describe("oneCall, the chapter's starting point", () => {
  it("calls the model once: the tool it asks for never runs, and the next request is rejected", async () => {
    const model = branchModel();
    const messages: MessageParam[] = [{ role: "user", content: "What is the current git branch?" }];
    const heard: string[] = [];
    const emit = (event: { type: string }) => heard.push(event.type);
    const result = await oneCall(model.client(), messages, { model: "test-model", cwd: workDir(), emit });
    expect(heard).toEqual([]); // nothing is told: the events come with the loop
    // it says final_answer, but the "answer" is the model's promise to look
    expect(result).toMatchObject({
      stopReason: "final_answer",
      turns: 1,
      toolCalls: 0,
      finalText: "I'll check with git.",
      providerStopReason: "tool_use",
    });
    expect(model.requests).toHaveLength(1);
    // the tool_use has no tool_result: the API (and the scripted model) refuse the next request
    expect(historyProblems(messages).join("\n")).toMatch(/tool_use.*toolu_branch/);
    appendUserText(messages, "And?");
    await expect(agentLoop(model.client(), messages, { model: "test-model", cwd: workDir() })).rejects.toThrow(
      /400.*toolu_branch/,
    );
  });

  it("is what agentLoop fixes: in the loop, the command runs and its output goes back to the model", async () => {
    const model = branchModel();
    const messages: MessageParam[] = [{ role: "user", content: "What is the current git branch?" }];
    const result = await agentLoop(model.client(), messages, { model: "test-model", cwd: workDir() });
    expect(result).toMatchObject({ stopReason: "final_answer", turns: 2, toolCalls: 1 });
    // the second request carries the command's real output, answering the tool_use by its id
    expect(model.requests[1].body.messages.at(-1)?.content).toEqual([
      { type: "tool_result", tool_use_id: "toolu_branch", content: "trunk\n[exit code 0]", is_error: false },
    ]);
    expect(historyProblems(messages)).toEqual([]);
  });
});
