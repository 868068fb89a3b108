/**
 * The window on its own, as main.ts builds it once per session: its `send` compacts and resends on
 * the "too long" refusals its reader recognises (a provider whose refusal is worded otherwise is
 * kept inside its window too), a refusal that names no maximum is bounded by the request that did
 * not fit, `/compact` works before any request (a resumed session), `fit` in server mode only asks
 * the server, and each response it hears measures the context, prompt after prompt.
 */
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { ALL_TOOLS, toApiTool } from "@harness/s02-tool-dispatch";
import { sendStreamed } from "@harness/s03-streaming";
import { ScriptedModel, type ScriptStep, textReply } from "@harness/scripted-model";
import { AgentTurn, type LoopEvent } from "@harness/shared";
import { describe, expect, it } from "vitest";
import { SUMMARY_OPENING } from "../src/compaction/compact-history.ts";
import { type ContextChange, type ContextEvent, ContextWindow } from "../src/context-window.ts";
import { estimateTokens } from "../src/measure-context.ts";
import { serverContextManagement } from "../src/server-context-management.ts";
import { historyFrom, tools } from "./histories.ts";

const OWN_WORDS = "the provider's own words for too long";
const refusal: ScriptStep = { kind: "http_error", status: 400, message: OWN_WORDS };
const signal = new AbortController().signal;

/** A window on a scripted model whose "too long" is worded its own way (naming `maximum`, or not). */
function windowOn(script: ScriptStep[], settings: { maximum?: number; mode?: "client" | "server" | "off" } = {}) {
  const model = new ScriptedModel({ script });
  const changes: ContextChange[] = [];
  const window = new ContextWindow({
    send: sendStreamed(model.client({ maxRetries: 0 })),
    model: "claude-test",
    mode: settings.mode,
    tools: ALL_TOOLS.map(toApiTool),
    emit: (event) => {
      if (event.type === "context") changes.push((event as ContextEvent).change);
    },
    tooLong: (error) =>
      String(error).includes(OWN_WORDS)
        ? { tokens: 0, ...(settings.maximum ? { maximum: settings.maximum } : {}) }
        : null,
  });
  return { model, window, changes };
}

const request = (messages: MessageParam[]) => ({ model: "claude-test", max_tokens: 100, messages });

describe("ContextWindow.send", () => {
  it("compacts once and resends on a refusal its reader recognises, and lets any other error through", async () => {
    const { model, window } = windowOn(
      [
        { kind: "http_error", status: 400, message: "another error" },
        refusal,
        textReply("## Task\n- the summary"),
        textReply("answered"),
      ],
      { maximum: 5000 },
    );
    const messages = historyFrom([tools(2, 4000), tools(2, 4000)]);
    await expect(window.send(request(messages), signal)).rejects.toThrow("another error");
    expect(model.requests).toHaveLength(1);
    const response = await window.send(request(messages), signal);
    expect(response && AgentTurn.fromResponse(response).text).toBe("answered");
    expect(model.requests).toHaveLength(4); // the other error; the refusal, the summary, the resend
    expect(JSON.stringify(messages[0])).toContain(SUMMARY_OPENING);
    expect(window.limits.usable).toBeLessThan(5000); // the window the refusal named is taken on
  });

  it("says the window a refusal names once: a later refusal naming the same one changes nothing", async () => {
    const summary = textReply("## Task\n- the summary");
    const { window, changes } = windowOn([refusal, summary, textReply("one"), refusal, summary, textReply("two")], {
      maximum: 5000,
    });
    for (const _ of [1, 2]) await window.send(request(historyFrom([tools(2, 4000), tools(2, 4000)])), signal);
    const said = changes.filter((c) => c.kind === "window");
    expect(said).toEqual([
      { kind: "window", was: 200_000, named: true, size: expect.objectContaining({ window: 5000 }) },
    ]);
    expect(changes.filter((c) => c.kind === "compacted")).toHaveLength(2);
  });

  it("bounds the window by the refused request when the refusal names no maximum", async () => {
    const { window, changes } = windowOn([refusal, textReply("## Task\n- the summary"), textReply("answered")]);
    const before = window.limits.usable;
    const messages = historyFrom([tools(2, 4000), tools(2, 4000), tools(2, 4000)]);
    const refused = window.size(messages).tokens;
    expect(refused).toBeLessThan(before);
    await window.send(request(messages), signal);
    expect(window.limits.usable).toBeLessThan(refused);
    expect(changes[0]).toMatchObject({ kind: "window", named: false, size: { window: refused } });
  });
});

describe("ContextWindow.compact, by hand", () => {
  it("summarises before any request (a resumed session's history), with the tools it was given, keeping no tail", async () => {
    const { model, window, changes } = windowOn([textReply("## Task\n- what the session did")]);
    const messages = historyFrom([tools(1, 2000), tools(1, 2000)]);
    messages.push({ role: "assistant", content: "Both done." }); // a REPL's history between prompts
    expect(await window.compact(messages, "by_hand", signal, "keep the ids")).toBeNull();
    const [asked] = model.requests;
    expect(asked.body.tools).toEqual(ALL_TOOLS.map(toApiTool));
    expect(JSON.stringify(asked.body.messages)).toContain("Additional instructions from the user: keep the ids");
    expect(changes).toEqual([expect.objectContaining({ kind: "compacted", why: "by_hand", summarised: 6, kept: 0 })]);
    expect(messages).toHaveLength(1);
  });

  it("says there is nothing to summarise yet in an empty session, and counts it as no failure", async () => {
    const { window, changes } = windowOn([]);
    expect(await window.compact([], "by_hand", signal)).toBeNull();
    expect(changes).toEqual([
      { kind: "compaction_failed", why: "by_hand", reason: "there is nothing to summarise yet", failures: 0 },
    ]);
  });
});

describe("ContextWindow.fit", () => {
  it("in server mode asks the server, at the window's thresholds, and leaves the history as it is", async () => {
    const { model, window } = windowOn([], { mode: "server" });
    const messages = historyFrom([tools(2, 40_000), tools(2, 40_000)]);
    const before = structuredClone(messages);
    const sent = request(messages);
    expect(await window.fit(sent, signal)).toBeNull();
    expect(sent).toMatchObject(serverContextManagement(window.limits));
    expect(messages).toEqual(before);
    expect(model.requests).toHaveLength(0);
  });

  it("with compaction off, does nothing at all", async () => {
    const { window } = windowOn([], { mode: "off" });
    const messages = historyFrom([tools(2, 400_000)]);
    const sent = request(messages);
    expect(await window.fit(sent, signal)).toBeNull();
    expect(sent).toEqual(request(historyFrom([tools(2, 400_000)])));
  });
});

describe("ContextWindow.observe", () => {
  it("measures the context by each response it hears, and estimates what came after it, prompt after prompt", async () => {
    const { window, changes } = windowOn([]);
    const messages: MessageParam[] = [{ role: "user", content: "hello" }];
    await window.fit(request(messages), signal); // the loop's request: what the next response measures
    messages.push({ role: "assistant", content: "hi" });
    const response = {
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "m",
      content: [{ type: "text", text: "hi" }],
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: { input_tokens: 900, output_tokens: 20 },
    } as never;
    const heard: LoopEvent = { type: "turn", turn: AgentTurn.fromResponse(response), response };
    window.observe(heard);
    expect(changes.at(-1)).toEqual({
      kind: "measured",
      size: expect.objectContaining({ tokens: 920, estimated: false }),
    });
    const prompt: MessageParam = { role: "user", content: "x".repeat(400) }; // the next prompt, in the same session
    messages.push(prompt);
    expect(window.size(messages)).toMatchObject({ tokens: 920 + estimateTokens([prompt]), estimated: true });
  });
});
