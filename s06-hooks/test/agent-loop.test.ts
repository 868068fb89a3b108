/**
 * s06's loop on the scripted model, its replies scripted: the `hooks` seam is asked before the
 * prompt is sent and when an answer is about to stand, never elsewhere; a block ends the run with
 * nothing sent, a Stop hook's message sends it on within the turn budget. Then the seam main.ts
 * builds (`loopHooks`) with the user's hooks, real commands.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { sendStreamed } from "@harness/s03-streaming";
import { reply, ScriptedModel, type ScriptStep, text, textReply, toolUse } from "@harness/scripted-model";
import { historyProblems } from "@harness/shared";
import { cleanUpAfter } from "@harness/testkit";
import { describe, expect, it } from "vitest";
import { type AgentLoopOptions, agentLoop } from "../src/agent-loop.ts";
import { type LoopHooks, loopHooks } from "../src/loop-hooks.ts";
import type { HookCommand } from "../src/runner/load-hooks.ts";
import { commandHook } from "./command-hook.ts";

/** A fresh directory, removed after the test. */
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "s06-loop-"));
  cleanUpAfter(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A hooks seam that records when it is asked, blocks the prompt when told to, and goes on with `more`, once each. */
function fakeHooks({ block = false, more = [] as string[] } = {}) {
  const asked: string[] = [];
  const hooks: LoopHooks = {
    async submitPrompt(messages) {
      asked.push(`submitPrompt after ${messages.length} message(s)`);
      if (!block) return { kind: "sent", prompt: messages.at(-1), notices: [] };
      messages.pop();
      return { kind: "blocked", reason: "no", notices: [] };
    },
    async stop() {
      asked.push("stop");
      return more.shift();
    },
  };
  return { hooks, asked };
}

/** Run the loop on `script` with the prompt "go"; every event it tells is kept. */
async function run(script: ScriptStep[], options: Partial<AgentLoopOptions> = {}) {
  const model = new ScriptedModel({ script });
  const messages: MessageParam[] = [{ role: "user", content: "go" }];
  const events: { type: string }[] = [];
  const result = await agentLoop(sendStreamed(model.client()), messages, {
    model: "test-model",
    cwd: tempDir(),
    emit: (event) => events.push(event),
    ...options,
  });
  return { model, messages, events, result };
}

describe("agentLoop's hooks seam", () => {
  it("asks submitPrompt before anything is sent; a block ends the run with prompt_blocked, nothing sent", async () => {
    const { hooks, asked } = fakeHooks({ block: true });
    const { model, messages, events, result } = await run([textReply("never sent")], { hooks });
    expect(asked).toEqual(["submitPrompt after 1 message(s)"]);
    expect(model.requests).toEqual([]);
    expect(messages).toEqual([]);
    expect(result).toEqual({
      stopReason: "prompt_blocked",
      turns: 0,
      toolCalls: 0,
      finalText: "",
      providerStopReason: null,
      usage: { inputTokens: 0, outputTokens: 0 },
    });
    expect(events).toEqual([{ type: "end", result }]);
  });

  it("asks stop only when an answer is about to stand: not after tool calls, not for a cut turn", async () => {
    const calls = fakeHooks();
    await run([reply([toolUse("bash", { command: "echo hi" })]), textReply("It said hi.")], { hooks: calls.hooks });
    expect(calls.asked).toEqual(["submitPrompt after 1 message(s)", "stop"]);
    const cut = fakeHooks();
    const { result } = await run([textReply("Half an ans", { stopReason: "max_tokens" })], { hooks: cut.hooks });
    expect(result.stopReason).toBe("max_tokens");
    expect(cut.asked).toEqual(["submitPrompt after 1 message(s)"]);
  });

  it("goes on with the message stop returns, as the next user message, and the next answer stands", async () => {
    const { hooks, asked } = fakeHooks({ more: ["the tests fail: fix them"] });
    const { model, messages, result } = await run([textReply("Done."), textReply("Fixed. Done.")], { hooks });
    expect(asked).toEqual(["submitPrompt after 1 message(s)", "stop", "stop"]);
    expect(model.requests).toHaveLength(2);
    expect(model.requests[1].body.messages.at(-1)).toEqual({ role: "user", content: "the tests fail: fix them" });
    expect(result).toMatchObject({ stopReason: "final_answer", turns: 2, finalText: "Fixed. Done." });
    expect(historyProblems(messages)).toEqual([]);
  });

  it("ends with max_turns when stop would send the run on and the budget has no room for it", async () => {
    const { hooks } = fakeHooks({ more: ["once more"] });
    const { model, messages, result } = await run([textReply("Done."), textReply("never sent")], {
      hooks,
      maxTurns: 1,
    });
    expect(model.requests).toHaveLength(1);
    expect(result).toMatchObject({ stopReason: "max_turns", turns: 1, finalText: "Done." });
    expect(messages.at(-1)).toEqual({ role: "assistant", content: [{ type: "text", text: "Done." }] });
  });

  it("runs as s05's loop without hooks", async () => {
    const { result, messages } = await run([
      reply([text("Looking."), toolUse("bash", { command: "echo hi" })]),
      textReply("hi"),
    ]);
    expect(result).toMatchObject({ stopReason: "final_answer", turns: 2, toolCalls: 1 });
    expect(historyProblems(messages)).toEqual([]);
  });
});

describe("agentLoop with the user's hooks (loopHooks)", () => {
  /** The seam main.ts builds, on `hooks`; the notices it tells are kept. */
  function userHooks(hooks: HookCommand[], context?: string[]) {
    const cwd = tempDir();
    const notices: string[] = [];
    const seam = loopHooks({
      hooks,
      session: { sessionId: "s06-test", cwd },
      runProjectHooks: false,
      context,
      notice: (line) => notices.push(line),
    });
    return { cwd, seam, notices };
  }

  it("sends the prompt with the text a UserPromptSubmit hook printed, and SessionStart's, labelled, before it", async () => {
    const hook = commandHook("echo 'branch: main'", { event: "UserPromptSubmit" });
    const { cwd, seam } = userHooks([hook], ["from SessionStart"]);
    const { model } = await run([textReply("Noted.")], { cwd, hooks: seam });
    expect(model.requests[0].body.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "[SessionStart hook]\nfrom SessionStart" },
          { type: "text", text: "[UserPromptSubmit hook]\nbranch: main" },
          { type: "text", text: "go" },
        ],
      },
    ]);
  });

  it("takes a prompt a UserPromptSubmit hook blocks (exit 2) back unsent, and says why", async () => {
    const hook = commandHook("echo 'no secrets here' >&2; exit 2", { event: "UserPromptSubmit" });
    const { cwd, seam, notices } = userHooks([hook]);
    const { model, messages, result } = await run([textReply("never sent")], { cwd, hooks: seam });
    expect(result.stopReason).toBe("prompt_blocked");
    expect(model.requests).toEqual([]);
    expect(messages).toEqual([]);
    expect(notices).toEqual(["prompt blocked: no secrets here"]);
  });

  it("sends the run on once when a Stop hook always blocks: one more model call, then the answer stands", async () => {
    const hook = commandHook("echo 'the tests fail' >&2; exit 2", { event: "Stop" });
    const { cwd, seam, notices } = userHooks([hook]);
    const { model, result } = await run([textReply("Done."), textReply("Still done."), textReply("never sent")], {
      cwd,
      hooks: seam,
    });
    expect(model.requests).toHaveLength(2);
    expect(result).toMatchObject({ stopReason: "final_answer", turns: 2, finalText: "Still done." });
    expect(notices).toEqual([
      "a Stop hook sent the loop on: the tests fail",
      "a Stop hook blocked again after the loop went on once for this prompt; the answer stands: the tests fail",
    ]);
  });
});
