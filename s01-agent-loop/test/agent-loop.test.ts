import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Anthropic, { APIError } from "@anthropic-ai/sdk";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import {
  reply,
  type ScriptedBlock,
  ScriptedModel,
  type ScriptStep,
  text,
  textReply,
  toolUse,
} from "@harness/scripted-model";
import {
  type AgentLoopResult,
  appendUserText,
  bashToolDefinition,
  DEFAULT_MAX_TOKENS,
  DEFAULT_MAX_TURNS,
  historyProblems,
  type LoopEvent,
} from "@harness/shared";
import { afterEach, describe, expect, it } from "vitest";
import { type AgentLoopOptions, agentLoop } from "../src/agent-loop.ts";

const REFUSAL_FIXTURE = fileURLToPath(new URL("./fixtures/anthropic-refusal.json", import.meta.url));

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh directory for the bash tool to work in. */
function workDir(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "s01-loop-")));
  dirs.push(dir);
  return dir;
}

/** Run the loop on one prompt against a scripted model; return what it sent and returned. */
async function run(script: ScriptStep[], options: Partial<AgentLoopOptions> = {}) {
  const model = new ScriptedModel({ script });
  const messages: MessageParam[] = [{ role: "user", content: "the prompt" }];
  const result = await agentLoop(model.client(), messages, { model: "test-model", cwd: workDir(), ...options });
  return { model, messages, result };
}

/** The content blocks of a message (a string becomes one text block). */
function blocks(message: MessageParam | undefined): Record<string, unknown>[] {
  if (!message) return [];
  if (typeof message.content === "string") return [{ type: "text", text: message.content }];
  return message.content as unknown as Record<string, unknown>[];
}

/** An event in a few words: its type and what it is about. */
function describeEvent(event: LoopEvent): string {
  switch (event.type) {
    case "model_call":
      return `model_call ${event.turnNumber}`;
    case "turn":
      return `turn ${event.turn.text}`;
    case "tool_call":
      return `tool_call ${event.call.input.command}`;
    case "tool_result":
      return `tool_result ${event.result.content}`;
    case "end":
      return `end ${event.result.stopReason}`;
  }
}

function expectValid(messages: MessageParam[]): void {
  expect(historyProblems(messages)).toEqual([]);
  expect(historyProblems(messages)).toEqual([]);
}

describe("agentLoop", () => {
  it("returns a final answer in one turn without tools", async () => {
    const { model, messages, result } = await run([textReply("Hello.")]);
    expect(result).toEqual<AgentLoopResult>({
      stopReason: "final_answer",
      turns: 1,
      toolCalls: 0,
      finalText: "Hello.",
      providerStopReason: "end_turn",
      usage: expect.any(Object),
    });
    expect(model.requests).toHaveLength(1);
    const sent = model.requests[0].body;
    expect(sent).toMatchObject({ model: "test-model", max_tokens: DEFAULT_MAX_TOKENS, tools: [bashToolDefinition] });
    expect(sent.messages).toEqual([{ role: "user", content: "the prompt" }]);
    expect(messages).toEqual([
      { role: "user", content: "the prompt" },
      { role: "assistant", content: [{ type: "text", text: "Hello." }] },
    ]);
    expectValid(messages);
  });

  it("runs a tool, sends its result with the matching id, then answers", async () => {
    const { model, messages, result } = await run([
      reply([text("checking"), toolUse("bash", { command: "echo hi" }, "toolu_echo")]),
      textReply("It said hi."),
    ]);
    expect(result).toMatchObject({ stopReason: "final_answer", turns: 2, toolCalls: 1, finalText: "It said hi." });
    expect(model.requests).toHaveLength(2);
    const second = model.requests[1].body.messages;
    expect(second).toHaveLength(3);
    expect(second[1]).toEqual({
      role: "assistant",
      content: [
        { type: "text", text: "checking" },
        { type: "tool_use", id: "toolu_echo", name: "bash", input: { command: "echo hi" } },
      ],
    });
    expect(second[2]).toEqual({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "toolu_echo", content: "hi\n[exit code 0]", is_error: false }],
    });
    // the loop's own history is what it sent, plus the final answer
    expect(messages.slice(0, 3)).toEqual(second);
    expect(blocks(messages[3])).toEqual([{ type: "text", text: "It said hi." }]);
    expectValid(messages);
  });

  it("answers several tool calls of one turn in ONE user message, in tool_use order", async () => {
    const { model, messages, result } = await run([
      reply([
        toolUse("bash", { command: "echo one" }, "toolu_1"),
        toolUse("bash", { command: "echo two" }, "toolu_2"),
        toolUse("bash", { command: "echo three" }, "toolu_3"),
      ]),
      textReply("one, two, three"),
    ]);
    expect(result).toMatchObject({ stopReason: "final_answer", turns: 2, toolCalls: 3 });
    const sent = model.requests[1].body.messages;
    expect(sent).toHaveLength(3);
    expect(sent[2].role).toBe("user");
    expect(blocks(sent[2])).toEqual([
      { type: "tool_result", tool_use_id: "toolu_1", content: "one\n[exit code 0]", is_error: false },
      { type: "tool_result", tool_use_id: "toolu_2", content: "two\n[exit code 0]", is_error: false },
      { type: "tool_result", tool_use_id: "toolu_3", content: "three\n[exit code 0]", is_error: false },
    ]);
    expectValid(messages);
  });

  it.each(["max_tokens", "model_context_window_exceeded"])(
    "stops on %s with the partial text and never runs the cut tool_use",
    async (providerStop) => {
      const cwd = workDir();
      const { model, messages, result } = await run(
        [
          reply([text("I'll create the file"), toolUse("bash", { command: "touch created.txt" }, "toolu_cut")], {
            stopReason: providerStop,
          }),
          textReply("never requested"),
        ],
        { cwd },
      );
      expect(result).toMatchObject({
        stopReason: "max_tokens",
        turns: 1,
        toolCalls: 0,
        finalText: "I'll create the file",
        providerStopReason: providerStop,
      });
      expect(existsSync(join(cwd, "created.txt"))).toBe(false);
      expect(model.requests).toHaveLength(1);
      // the cut call is answered, as not run, so the history can be sent again
      expect(blocks(messages.at(-1))).toEqual([
        { type: "tool_result", tool_use_id: "toolu_cut", content: expect.stringMatching(/not run/), is_error: true },
      ]);
      expectValid(messages);
    },
  );

  it("ends with max_turns after exactly maxTurns model calls, the last turn's tool calls answered", async () => {
    const cwd = workDir();
    const { model, messages, result } = await run(
      [
        reply([toolUse("bash", { command: "echo 1 >> turns.txt" }, "toolu_t1")]),
        reply([toolUse("bash", { command: "echo 2 >> turns.txt" }, "toolu_t2")]),
        reply([toolUse("bash", { command: "echo 3 >> turns.txt" }, "toolu_t3")]),
        textReply("never requested"),
      ],
      { cwd, maxTurns: 2 },
    );
    expect(result).toMatchObject({ stopReason: "max_turns", turns: 2, toolCalls: 2, providerStopReason: "tool_use" });
    expect(model.requests).toHaveLength(2);
    expect(model.pending).toBe(2);
    expect(readFileSync(join(cwd, "turns.txt"), "utf8")).toBe("1\n2\n");
    expect(messages.at(-1)?.role).toBe("user");
    expect(blocks(messages.at(-1))).toEqual([
      { type: "tool_result", tool_use_id: "toolu_t2", content: "(no output)\n[exit code 0]", is_error: false },
    ]);
    expectValid(messages);
  });

  it("uses a budget of DEFAULT_MAX_TURNS model calls when none is given", async () => {
    const script = Array.from({ length: DEFAULT_MAX_TURNS + 2 }, (_, i) =>
      reply([toolUse("bash", { command: `echo ${i}` })]),
    );
    const { model, messages, result } = await run(script);
    expect(result).toMatchObject({ stopReason: "max_turns", turns: DEFAULT_MAX_TURNS, toolCalls: DEFAULT_MAX_TURNS });
    expect(model.requests).toHaveLength(DEFAULT_MAX_TURNS);
    expectValid(messages);
  });

  it("returns final_answer, not max_turns, when the last allowed turn answers", async () => {
    const { messages, result } = await run([reply([toolUse("bash", { command: "true" })]), textReply("Done in two.")], {
      maxTurns: 2,
    });
    expect(result).toMatchObject({ stopReason: "final_answer", turns: 2, finalText: "Done in two." });
    expectValid(messages);
  });

  it("continues after pause_turn: sends the history again as it is and merges the continuation", async () => {
    const serverToolUse = {
      type: "server_tool_use",
      id: "srvtoolu_1",
      name: "web_search",
      input: { query: "agent loops" },
    };
    const { model, messages, result } = await run([
      reply([text("Searching."), { type: "other", block: serverToolUse }], { stopReason: "pause_turn" }),
      textReply("Found it."),
    ]);
    expect(result).toMatchObject({
      stopReason: "final_answer",
      turns: 2,
      toolCalls: 0,
      finalText: "Found it.",
      providerStopReason: "end_turn",
    });
    expect(model.requests).toHaveLength(2);
    const first = model.requests[0].body.messages;
    const second = model.requests[1].body.messages;
    // the paused turn goes back as it is: the request ends with the assistant message
    expect(second).toEqual([
      ...first,
      { role: "assistant", content: [{ type: "text", text: "Searching." }, serverToolUse] },
    ]);
    expect(second.at(-1)?.role).toBe("assistant");
    // the continuation joins that same assistant message, so roles keep alternating
    expect(messages).toHaveLength(2);
    expect(blocks(messages[1])).toEqual([
      { type: "text", text: "Searching." },
      serverToolUse,
      { type: "text", text: "Found it." },
    ]);
    expectValid(messages);
  });

  it("runs the tool calls of a pause_turn turn and goes on", async () => {
    const { model, messages, result } = await run([
      reply([toolUse("bash", { command: "echo paused" }, "toolu_p")], { stopReason: "pause_turn" }),
      textReply("ok"),
    ]);
    expect(result).toMatchObject({ stopReason: "final_answer", turns: 2, toolCalls: 1 });
    expect(blocks(model.requests[1].body.messages.at(-1))).toEqual([
      { type: "tool_result", tool_use_id: "toolu_p", content: "paused\n[exit code 0]", is_error: false },
    ]);
    expectValid(messages);
  });

  it("ends a recorded refusal (empty content) as final_answer with providerStopReason refusal", async () => {
    const fixture = JSON.parse(readFileSync(REFUSAL_FIXTURE, "utf8"));
    const { model, messages, result } = await run([
      reply(fixture.content as ScriptedBlock[], {
        stopReason: fixture.stop_reason,
        usage: { input_tokens: fixture.usage.input_tokens, output_tokens: fixture.usage.output_tokens },
      }),
      textReply("never requested"),
    ]);
    expect(result).toEqual<AgentLoopResult>({
      stopReason: "final_answer",
      turns: 1,
      toolCalls: 0,
      finalText: "",
      providerStopReason: "refusal",
      usage: { inputTokens: 18, outputTokens: 5 },
    });
    expect(model.requests).toHaveLength(1);
    // an empty assistant message would be rejected; the turn is recorded as a note instead
    expect(blocks(messages.at(-1))).toEqual([{ type: "text", text: expect.stringContaining("refusal") }]);
    expectValid(messages);
  });

  it("reads the recorded refusal served verbatim, unknown fields (stop_details) and all", async () => {
    const body = readFileSync(REFUSAL_FIXTURE, "utf8");
    let requests = 0;
    const client = new Anthropic({
      apiKey: "test-key",
      baseURL: "http://recorded.invalid",
      fetch: async () => {
        requests++;
        return new Response(body, { status: 200, headers: { "content-type": "application/json" } });
      },
    });
    const messages: MessageParam[] = [{ role: "user", content: "the prompt" }];
    const result = await agentLoop(client, messages, { model: "test-model", cwd: workDir() });
    expect(result).toMatchObject({
      stopReason: "final_answer",
      turns: 1,
      providerStopReason: "refusal",
      finalText: "",
    });
    expect(requests).toBe(1);
    expectValid(messages);
  });

  it("never runs a tool_use that comes with a refusal", async () => {
    const cwd = workDir();
    const { model, messages, result } = await run(
      [
        reply([text("I can't help with that."), toolUse("bash", { command: "touch refused.txt" }, "toolu_r")], {
          stopReason: "refusal",
        }),
      ],
      { cwd },
    );
    expect(result).toMatchObject({ stopReason: "final_answer", providerStopReason: "refusal", turns: 1, toolCalls: 0 });
    expect(existsSync(join(cwd, "refused.txt"))).toBe(false);
    expect(model.requests).toHaveLength(1);
    expect(blocks(messages.at(-1))).toEqual([
      { type: "tool_result", tool_use_id: "toolu_r", content: expect.stringMatching(/not run/), is_error: true },
    ]);
    expectValid(messages);
  });

  it("lets the next prompt follow a turn cut by max_tokens", async () => {
    const model = new ScriptedModel({
      script: [
        reply([toolUse("bash", { command: "true" }, "toolu_cut")], { stopReason: "max_tokens" }),
        textReply("Now I answer."),
      ],
    });
    const messages: MessageParam[] = [{ role: "user", content: "first prompt" }];
    await agentLoop(model.client(), messages, { model: "test-model", cwd: workDir() });
    appendUserText(messages, "second prompt");
    const result = await agentLoop(model.client(), messages, { model: "test-model", cwd: workDir() });
    expect(result).toMatchObject({ stopReason: "final_answer", finalText: "Now I answer." });
    // the not-run result and the new prompt share one user message, results first
    expect(blocks(model.requests[1].body.messages.at(-1))).toEqual([
      { type: "tool_result", tool_use_id: "toolu_cut", content: expect.stringMatching(/not run/), is_error: true },
      { type: "text", text: "second prompt" },
    ]);
    expectValid(messages);
  });

  it("sends a failing command's output as an is_error result and goes on", async () => {
    const { model, messages, result } = await run([
      reply([toolUse("bash", { command: "echo oops; exit 3" }, "toolu_fail")]),
      textReply("It failed with 3."),
    ]);
    expect(result).toMatchObject({ stopReason: "final_answer", turns: 2, toolCalls: 1 });
    expect(blocks(model.requests[1].body.messages.at(-1))).toEqual([
      { type: "tool_result", tool_use_id: "toolu_fail", content: "oops\n[exit code 3]", is_error: true },
    ]);
    expectValid(messages);
  });

  it("answers an unknown tool with an error result and goes on", async () => {
    const { model, messages, result } = await run([
      reply([toolUse("python", { code: "print(1)" }, "toolu_py")]),
      textReply("I'll use bash then."),
    ]);
    expect(result).toMatchObject({ stopReason: "final_answer", turns: 2, toolCalls: 1 });
    expect(blocks(model.requests[1].body.messages.at(-1))).toEqual([
      {
        type: "tool_result",
        tool_use_id: "toolu_py",
        content: expect.stringMatching(/unknown tool "python"/),
        is_error: true,
      },
    ]);
    expectValid(messages);
  });

  it.each<[string, ScriptedBlock]>([
    ["input that is not JSON", { type: "tool_use", name: "bash", rawInput: '{"command": "ls', id: "toolu_bad" }],
    ["a command that is not a string", toolUse("bash", { command: 42 }, "toolu_bad")],
    ["no command at all", toolUse("bash", {}, "toolu_bad")],
  ])("answers %s with an invalid-arguments error and goes on", async (_, block) => {
    const { model, messages, result } = await run([reply([block]), textReply("Let me fix that.")]);
    expect(result).toMatchObject({ stopReason: "final_answer", turns: 2, toolCalls: 1 });
    expect(blocks(model.requests[1].body.messages.at(-1))).toEqual([
      {
        type: "tool_result",
        tool_use_id: "toolu_bad",
        content: expect.stringMatching(/^Error: invalid arguments/),
        is_error: true,
      },
    ]);
    expectValid(messages);
  });

  it("ends an unknown stop reason without tools as final_answer and keeps the raw value", async () => {
    const { messages, result } = await run([textReply("Something new.", { stopReason: "a_reason_from_2030" })]);
    expect(result).toMatchObject({
      stopReason: "final_answer",
      turns: 1,
      finalText: "Something new.",
      providerStopReason: "a_reason_from_2030",
    });
    expectValid(messages);
  });

  it("runs the tools of a turn with an unknown stop reason and goes on", async () => {
    const { messages, result } = await run([
      reply([toolUse("bash", { command: "true" })], { stopReason: "a_reason_from_2030" }),
      textReply("done"),
    ]);
    expect(result).toMatchObject({ stopReason: "final_answer", turns: 2, toolCalls: 1 });
    expectValid(messages);
  });

  it("ends a turn with a null stop reason as final_answer", async () => {
    const { messages, result } = await run([textReply("No reason given.", { stopReason: null })]);
    expect(result).toMatchObject({ stopReason: "final_answer", providerStopReason: null });
    expectValid(messages);
  });

  it("throws the APIError after the SDK's retries and leaves the history as it was", async () => {
    const model = new ScriptedModel({
      script: [
        { kind: "http_error", status: 529, retryAfterMs: 1 },
        { kind: "http_error", status: 529, retryAfterMs: 1 },
        { kind: "http_error", status: 529, retryAfterMs: 1 },
        textReply("never requested"),
      ],
    });
    const messages: MessageParam[] = [{ role: "user", content: "the prompt" }];
    const before = structuredClone(messages);
    const events: LoopEvent[] = [];
    const emit = (event: LoopEvent) => events.push(event);
    const error = await agentLoop(model.client(), messages, { model: "test-model", cwd: workDir(), emit }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(529);
    expect(model.requests).toHaveLength(3); // one call and the default maxRetries of 2
    expect(messages).toEqual(before);
    expect(messages.at(-1)).toEqual({ role: "user", content: "the prompt" });
    // the call was told, but no end: a run that throws has no result
    expect(events.map((event) => event.type)).toEqual(["model_call"]);
    expectValid(messages);
  });

  it("keeps the answered tool results when the API fails on a later turn", async () => {
    const model = new ScriptedModel({
      script: [
        reply([toolUse("bash", { command: "echo first" }, "toolu_ok")]),
        { kind: "http_error", status: 529, retryAfterMs: 1 },
        { kind: "http_error", status: 529, retryAfterMs: 1 },
        { kind: "http_error", status: 529, retryAfterMs: 1 },
      ],
    });
    const messages: MessageParam[] = [{ role: "user", content: "the prompt" }];
    await expect(agentLoop(model.client(), messages, { model: "test-model", cwd: workDir() })).rejects.toBeInstanceOf(
      APIError,
    );
    expect(model.requests).toHaveLength(4);
    expect(messages).toHaveLength(3);
    expect(blocks(messages[2])).toEqual([
      { type: "tool_result", tool_use_id: "toolu_ok", content: "first\n[exit code 0]", is_error: false },
    ]);
    // what the failed call sent is exactly what the history holds
    expect(model.requests[3].body.messages).toEqual(messages);
    expectValid(messages);
  });

  it("sums usage over every turn", async () => {
    const { messages, result } = await run([
      reply([toolUse("bash", { command: "true" })], { usage: { input_tokens: 100, output_tokens: 10 } }),
      reply([toolUse("bash", { command: "true" })], { usage: { input_tokens: 250, output_tokens: 20 } }),
      textReply("done", { usage: { input_tokens: 400, output_tokens: 7 } }),
    ]);
    expect(result.turns).toBe(3);
    expect(result.usage).toEqual({ inputTokens: 750, outputTokens: 37 });
    expectValid(messages);
  });

  it("runs the bash tool in options.cwd", async () => {
    const cwd = workDir();
    const { model, messages } = await run(
      [reply([toolUse("bash", { command: "pwd" }, "toolu_pwd")]), textReply("ok")],
      {
        cwd,
      },
    );
    expect(blocks(model.requests[1].body.messages.at(-1))).toEqual([
      { type: "tool_result", tool_use_id: "toolu_pwd", content: `${cwd}\n[exit code 0]`, is_error: false },
    ]);
    expect(model.requests[0].body.system).toContain(cwd);
    expectValid(messages);
  });

  it("continues a history that already holds an earlier exchange", async () => {
    const model = new ScriptedModel({ script: [textReply("first answer"), textReply("second answer")] });
    const messages: MessageParam[] = [{ role: "user", content: "first prompt" }];
    await agentLoop(model.client(), messages, { model: "test-model", cwd: workDir() });
    messages.push({ role: "user", content: "second prompt" });
    const result = await agentLoop(model.client(), messages, { model: "test-model", cwd: workDir() });
    expect(result).toMatchObject({ stopReason: "final_answer", turns: 1, finalText: "second answer" });
    expect(model.requests[1].body.messages).toEqual([
      { role: "user", content: "first prompt" },
      { role: "assistant", content: [{ type: "text", text: "first answer" }] },
      { role: "user", content: "second prompt" },
    ]);
    expectValid(messages);
  });

  it("tells emit each model call, turn, tool call and result, then the end, in order", async () => {
    const events: LoopEvent[] = [];
    const sent: number[] = []; // the messages each model_call's request holds as it is told
    const emit = (event: LoopEvent) => {
      events.push(event);
      if (event.type === "model_call") sent.push(event.request.messages.length);
    };
    const { messages, result } = await run(
      [reply([text("look"), toolUse("bash", { command: "echo x" }, "toolu_x")]), textReply("x")],
      { emit },
    );
    expect(events.map(describeEvent)).toEqual([
      "model_call 1",
      "turn look",
      "tool_call echo x",
      "tool_result x\n[exit code 0]",
      "model_call 2",
      "turn x",
      "end final_answer",
    ]);
    // each model_call carries the request about to be sent, and the end the result as it is returned
    expect(sent).toEqual([1, 3]);
    expect(events.at(-1)).toEqual({ type: "end", result });
    expectValid(messages);
  });

  it("tells emit the end of every way out: a cut turn, the budget, a refusal", async () => {
    const ends = async (script: ScriptStep[], options: Partial<AgentLoopOptions> = {}) => {
      const events: LoopEvent[] = [];
      const { result } = await run(script, { ...options, emit: (event) => events.push(event) });
      expect(events.filter((event) => event.type === "end")).toEqual([{ type: "end", result }]);
      return result.stopReason;
    };
    expect(await ends([textReply("cut", { stopReason: "max_tokens" })])).toBe("max_tokens");
    expect(await ends([reply([toolUse("bash", { command: "true" })])], { maxTurns: 1 })).toBe("max_turns");
    expect(await ends([textReply("no", { stopReason: "refusal" })])).toBe("final_answer");
  });
});
