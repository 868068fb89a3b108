import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { historyProblems } from "@harness/shared";
import { describe, expect, it } from "vitest";
import { isHookContext, submitPrompt } from "../src/submit-prompt.ts";
import { commandHook } from "./command-hook.ts";

const session = { sessionId: "s", cwd: process.cwd() };
const options = (context?: string[]) => ({ cwd: session.cwd, runProjectHooks: false, session, context });
const blocking = [commandHook("echo 'no secrets' >&2; exit 2", { event: "UserPromptSubmit" })];

describe("submitPrompt", () => {
  it("takes a blocked prompt back out of the history, and says why in one line", async () => {
    const messages: MessageParam[] = [{ role: "user", content: "my password is hunter2" }];
    const submitted = await submitPrompt(messages, blocking, options());
    expect(submitted).toEqual({ kind: "blocked", reason: "no secrets", notices: ["prompt blocked: no secrets"] });
    expect(messages).toEqual([]);
  });

  it("takes off only the prompt when it was added to a user message already there", async () => {
    // a run cut before the model answered leaves its prompt; the next one is appended to it
    const messages: MessageParam[] = [
      { role: "user", content: "first" },
      { role: "assistant", content: "ok" },
      {
        role: "user",
        content: [
          { type: "text", text: "second" },
          { type: "text", text: "my password is hunter2" },
        ],
      },
    ];
    await submitPrompt(messages, blocking, options());
    expect(messages.at(-1)).toEqual({ role: "user", content: [{ type: "text", text: "second" }] });
    expect(historyProblems(messages)).toEqual([]);
  });

  it("puts SessionStart's context and the hooks' before the prompt, as blocks labelled with their event", async () => {
    const messages: MessageParam[] = [{ role: "user", content: "hi" }];
    const hooks = [commandHook("echo 'branch: main'", { event: "UserPromptSubmit" })];
    const submitted = await submitPrompt(messages, hooks, options(["from SessionStart"]));
    expect(messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "[SessionStart hook]\nfrom SessionStart" },
          { type: "text", text: "[UserPromptSubmit hook]\nbranch: main" },
          { type: "text", text: "hi" },
        ],
      },
    ]);
    expect(submitted).toEqual({ kind: "sent", prompt: messages[0], notices: [] });
    const texts = (messages[0].content as { text: string }[]).map((block) => block.text);
    expect(texts.map(isHookContext)).toEqual([true, true, false]);
  });

  it("says what was sent of a prompt joined to an unanswered message: its own blocks, context included", async () => {
    // a run cut after its tools ran leaves their results unanswered; the next prompt is appended to them
    const result = { type: "tool_result" as const, tool_use_id: "toolu_1", content: "done" };
    const messages: MessageParam[] = [{ role: "user", content: [result, { type: "text", text: "and now?" }] }];
    const submitted = await submitPrompt(messages, [], options(["from SessionStart"]));
    expect(submitted).toEqual({
      kind: "sent",
      prompt: {
        role: "user",
        content: [
          { type: "text", text: "[SessionStart hook]\nfrom SessionStart" },
          { type: "text", text: "and now?" },
        ],
      },
      notices: [],
    });
    expect(messages[0].content).toHaveLength(3); // the result, the context, the prompt
  });

  it("leaves the prompt as typed when no hook has anything to say", async () => {
    const messages: MessageParam[] = [{ role: "user", content: "hi" }];
    expect(await submitPrompt(messages, [], options())).toEqual({ kind: "sent", prompt: messages[0], notices: [] });
    expect(messages).toEqual([{ role: "user", content: "hi" }]);
  });
});
