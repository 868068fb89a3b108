import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { APIError } from "@anthropic-ai/sdk";
import type { Message, MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { ALL_TOOLS, toApiTool } from "@harness/s02-tool-dispatch";
import { reply, ScriptedModel, type ScriptStep, text, textReply, toolUse } from "@harness/scripted-model";
import {
  type AgentLoopResult,
  appendUserText,
  DEFAULT_MAX_TOKENS,
  DEFAULT_MAX_TURNS,
  historyProblems,
  type LoopEvent,
} from "@harness/shared";
import { describe, expect, it } from "vitest";
import type { AbortableStopReason } from "../src/abortable-stop-reason.ts";
import { type AgentLoopOptions, agentLoop } from "../src/agent-loop.ts";
import { type SendTurn, StreamError, type StreamEvent, sendStreamed } from "../src/stream-turn.ts";
import { tempWorkdir } from "./temp-workdir.ts";

/** Each turn streamed from the scripted model, as main.ts sends it; no retry by the SDK, a short wait before a stream is sent again. */
function streamed(model: ScriptedModel): SendTurn {
  return sendStreamed(model.client({ maxRetries: 0 }), 1);
}

/** Run the loop on one prompt against a scripted model; return what it sent and returned. */
async function run(script: ScriptStep[], options: Partial<AgentLoopOptions> = {}) {
  const model = new ScriptedModel({ script });
  const messages: MessageParam[] = [{ role: "user", content: "the prompt" }];
  const cwd = options.cwd ?? tempWorkdir();
  const result = await agentLoop(streamed(model), messages, { model: "test-model", cwd, ...options });
  return { model, messages, result, cwd };
}

/** An event in a few words: its type and what it is about (a run of text deltas is one "text"). */
function describeEvent(event: LoopEvent | StreamEvent): string {
  switch (event.type) {
    case "model_call":
      return `model_call ${event.turnNumber}`;
    case "tool_call":
    case "tool_result":
      return `${event.type} ${event.call.name}`;
    case "end":
      return `end ${event.result.stopReason}`;
    default:
      return event.type;
  }
}

function expectValid(messages: MessageParam[]): void {
  expect(historyProblems(messages)).toEqual([]);
  expect(historyProblems(messages)).toEqual([]);
}

/** The content blocks of a message, loosely typed for assertions. */
function blocks(message: MessageParam | undefined): Record<string, unknown>[] {
  if (!message) return [];
  if (typeof message.content === "string") return [{ type: "text", text: message.content }];
  return message.content as unknown as Record<string, unknown>[];
}

/** Wait until `check` holds, looking again every few milliseconds (no deadline of its own). */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** After any exit: a next prompt is accepted (the scripted model rejects an invalid history with a 400). */
async function expectNextPromptWorks(model: ScriptedModel, messages: MessageParam[], cwd: string): Promise<void> {
  appendUserText(messages, "are you still there?");
  model.push(textReply("Still here."));
  const next = await agentLoop(streamed(model), messages, { model: "test-model", cwd });
  expect(next).toMatchObject({ stopReason: "final_answer", finalText: "Still here." });
  expect(historyProblems(model.requests.at(-1)!.body.messages)).toEqual([]);
  expectValid(messages);
}

describe("agentLoop", () => {
  it("returns a final answer in one turn without tools, streamed, offering the six tools", async () => {
    const { model, messages, result } = await run([textReply("Hello.")]);
    expect(result).toEqual<AgentLoopResult<AbortableStopReason>>({
      stopReason: "final_answer",
      turns: 1,
      toolCalls: 0,
      finalText: "Hello.",
      providerStopReason: "end_turn",
      usage: expect.objectContaining({ inputTokens: expect.any(Number) }),
    });
    const sent = model.requests[0].body;
    expect(sent).toMatchObject({ model: "test-model", max_tokens: DEFAULT_MAX_TOKENS, stream: true });
    expect(sent.tools).toEqual(ALL_TOOLS.map(toApiTool));
    expect(messages).toEqual([
      { role: "user", content: "the prompt" },
      { role: "assistant", content: [{ type: "text", text: "Hello." }] },
    ]);
    expectValid(messages);
  });

  it("never runs a tool call whose streamed JSON was cut, and answers it with invalid_arguments", async () => {
    const { model, messages, result, cwd } = await run([
      reply([{ type: "tool_use", name: "bash", rawInput: '{"command": "touch pwned"', id: "toolu_cut" }]),
      textReply("My call was cut."),
    ]);
    expect(existsSync(join(cwd, "pwned"))).toBe(false);
    expect(result).toMatchObject({ stopReason: "final_answer", turns: 2, toolCalls: 1 });
    const [answer] = blocks(model.requests[1].body.messages.at(-1));
    expect(answer).toMatchObject({ tool_use_id: "toolu_cut", is_error: true });
    expect(answer.content).toMatch(/^Error \[invalid_arguments\]: the input is not a JSON object: \{"command": "touch/);
    expect(blocks(messages[1])).toEqual([{ type: "tool_use", id: "toolu_cut", name: "bash", input: {} }]);
    expectValid(messages);
  });

  it("never runs a tool call whose streamed JSON is malformed", async () => {
    const { messages, cwd } = await run([
      reply([{ type: "tool_use", name: "bash", rawInput: '{"command": "touch pwned",,}', id: "toolu_bad" }]),
      textReply("Oops."),
    ]);
    expect(existsSync(join(cwd, "pwned"))).toBe(false);
    expect(blocks(messages[2])[0].content).toMatch(/^Error \[invalid_arguments\]/);
    expectValid(messages);
  });

  describe("the stop-reason table, streamed", () => {
    it.each(["max_tokens", "model_context_window_exceeded"])(
      "stops on %s with the partial text, never running the cut tool call, history valid",
      async (stopReason) => {
        const { model, messages, result, cwd } = await run([
          reply([text("Let me create"), toolUse("bash", { command: "touch cut" }, "toolu_cut")], { stopReason }),
        ]);
        expect(result).toMatchObject({
          stopReason: "max_tokens",
          turns: 1,
          toolCalls: 0,
          finalText: "Let me create",
          providerStopReason: stopReason,
        });
        expect(existsSync(join(cwd, "cut"))).toBe(false);
        expect(model.requests).toHaveLength(1);
        expect(blocks(messages.at(-1))).toEqual([
          {
            type: "tool_result",
            tool_use_id: "toolu_cut",
            content: `Error [not_run]: the turn stopped with "${stopReason}", so no tool from it runs.`,
            is_error: true,
          },
        ]);
        expectValid(messages);
        await expectNextPromptWorks(model, messages, cwd);
      },
    );

    it("stops on refusal as a final answer, never running its tool call, history valid", async () => {
      const { model, messages, result, cwd } = await run([
        reply([toolUse("bash", { command: "touch refused" })], { stopReason: "refusal" }),
      ]);
      expect(result).toMatchObject({ stopReason: "final_answer", providerStopReason: "refusal", toolCalls: 0 });
      expect(existsSync(join(cwd, "refused"))).toBe(false);
      expectValid(messages);
      await expectNextPromptWorks(model, messages, cwd);
    });

    it("stops on a refusal with no content (the recorded shape) as a final answer", async () => {
      const { messages, result } = await run([reply([], { stopReason: "refusal" })]);
      expect(result).toMatchObject({ stopReason: "final_answer", providerStopReason: "refusal", finalText: "" });
      expectValid(messages);
    });

    it("runs the tool calls whatever the stop reason says, unknown ones included", async () => {
      const { messages, result } = await run([
        reply([toolUse("glob", { pattern: "*" })], { stopReason: "end_turn" }),
        reply([toolUse("glob", { pattern: "*" })], { stopReason: "some_new_reason" }),
        textReply("done"),
      ]);
      expect(result).toMatchObject({ stopReason: "final_answer", turns: 3, toolCalls: 2 });
      expectValid(messages);
    });

    it("ends on an unknown stop reason with no tool call as a final answer", async () => {
      const { messages, result } = await run([textReply("hm", { stopReason: "some_new_reason" })]);
      expect(result).toMatchObject({ stopReason: "final_answer", providerStopReason: "some_new_reason" });
      expectValid(messages);
    });

    it("sends the history again as it is after pause_turn, and merges the continuation", async () => {
      const { model, messages, result } = await run([
        textReply("Searching the web", { stopReason: "pause_turn" }),
        textReply("Found it."),
      ]);
      expect(result).toMatchObject({ stopReason: "final_answer", turns: 2, finalText: "Found it." });
      expect(model.requests[1].body.messages).toEqual([
        { role: "user", content: "the prompt" },
        { role: "assistant", content: [{ type: "text", text: "Searching the web" }] },
      ]);
      expect(messages).toHaveLength(2);
      expect(blocks(messages[1]).map((b) => b.text)).toEqual(["Searching the web", "Found it."]);
      expectValid(messages);
    });

    it("stops at the turn budget with max_turns; the last turn's calls still get their results", async () => {
      const step = () => reply([toolUse("glob", { pattern: "*" })]);
      const { model, messages, result, cwd } = await run([step(), step()], { maxTurns: 2 });
      expect(result).toMatchObject({ stopReason: "max_turns", turns: 2, toolCalls: 2 });
      expect(model.requests).toHaveLength(2);
      expect(messages.at(-1)?.role).toBe("user");
      expect(blocks(messages.at(-1))[0].type).toBe("tool_result");
      expectValid(messages);
      await expectNextPromptWorks(model, messages, cwd);
    });

    it(`defaults the turn budget to DEFAULT_MAX_TURNS (${DEFAULT_MAX_TURNS})`, async () => {
      const steps = Array.from({ length: DEFAULT_MAX_TURNS + 1 }, () => reply([toolUse("glob", { pattern: "*" })]));
      const { model, messages, result } = await run(steps);
      expect(result).toMatchObject({ stopReason: "max_turns", turns: DEFAULT_MAX_TURNS });
      expect(model.requests).toHaveLength(DEFAULT_MAX_TURNS);
      expectValid(messages);
    });
  });

  describe("a stream that fails", () => {
    const faults: [string, ScriptStep, (error: unknown) => void][] = [
      [
        "ends without message_stop",
        { kind: "no_message_stop", reply: reply([text("half"), toolUse("bash", { command: "touch x" })]) },
        (error) => expect(error).toBeInstanceOf(StreamError),
      ],
      [
        "carries an SSE error event after its content started",
        { kind: "sse_error", afterEvents: 4, reply: reply([text("half"), toolUse("bash", { command: "touch x" })]) },
        (error) => {
          expect(error).toBeInstanceOf(StreamError);
          expect((error as StreamError).cause).toBeInstanceOf(APIError);
        },
      ],
      [
        "is cut mid-way",
        { kind: "cut", afterEvents: 6, reply: reply([text("half"), toolUse("bash", { command: "touch x" })]) },
        (error) => expect(error).toBeInstanceOf(Error),
      ],
      [
        "is refused with an HTTP error",
        { kind: "http_error", status: 400, message: "bad request" },
        (error) => expect(error).toBeInstanceOf(APIError),
      ],
    ];

    it.each(faults)(
      "is thrown when it %s, never taken as an answer; the history is unchanged",
      async (_, fault, check) => {
        const cwd = tempWorkdir();
        const model = new ScriptedModel({ script: [fault] });
        const messages: MessageParam[] = [{ role: "user", content: "the prompt" }];
        const before = structuredClone(messages);
        const error = await agentLoop(streamed(model), messages, { model: "test-model", cwd }).catch((e: unknown) => e);
        check(error);
        expect(messages).toEqual(before);
        expect(existsSync(join(cwd, "x"))).toBe(false);
        expectValid(messages);
        await expectNextPromptWorks(model, messages, cwd);
      },
    );

    it("leaves the tool results of earlier turns in place when a later turn fails", async () => {
      const cwd = tempWorkdir();
      const model = new ScriptedModel({
        script: [reply([toolUse("glob", { pattern: "*" }, "toolu_1")]), { kind: "no_message_stop" }],
      });
      const messages: MessageParam[] = [{ role: "user", content: "the prompt" }];
      await expect(agentLoop(streamed(model), messages, { model: "test-model", cwd })).rejects.toThrow(StreamError);
      expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
      expect(blocks(messages[2])[0]).toMatchObject({ type: "tool_result", tool_use_id: "toolu_1" });
      expectValid(messages);
      await expectNextPromptWorks(model, messages, cwd);
    });
  });

  describe("Ctrl-C", () => {
    it("returns aborted at once when the signal fired before the loop began, sending nothing", async () => {
      const controller = new AbortController();
      controller.abort();
      const { model, messages, result } = await run([textReply("never")], { signal: controller.signal });
      expect(result).toEqual({
        stopReason: "aborted",
        turns: 0,
        toolCalls: 0,
        finalText: "",
        providerStopReason: null,
        usage: { inputTokens: 0, outputTokens: 0 },
      });
      expect(model.requests).toHaveLength(0);
      expectValid(messages);
    });

    it("stops while waiting for the model, leaving the history as it was; a next prompt works", async () => {
      const cwd = tempWorkdir();
      const controller = new AbortController();
      const model = new ScriptedModel({ script: [{ kind: "hang" }] });
      const messages: MessageParam[] = [{ role: "user", content: "the prompt" }];
      const running = agentLoop(streamed(model), messages, {
        model: "test-model",
        cwd,
        signal: controller.signal,
      });
      await until(() => model.requests.length === 1);
      controller.abort();
      expect(await running).toMatchObject({ stopReason: "aborted", turns: 1, toolCalls: 0 });
      expect(messages).toEqual([{ role: "user", content: "the prompt" }]);
      expectValid(messages);
      await expectNextPromptWorks(model, messages, cwd);
      expect(model.requests[1].body.messages).toEqual([
        {
          role: "user",
          content: [
            { type: "text", text: "the prompt" },
            { type: "text", text: "are you still there?" },
          ],
        },
      ]);
    });

    it("stops mid-stream, dropping the half-streamed turn and its tool call; a next prompt works", async () => {
      const cwd = tempWorkdir();
      const controller = new AbortController();
      const model = new ScriptedModel({
        script: [
          reply(
            [text("I will now create a file called half, like this:"), toolUse("bash", { command: "touch half" })],
            {
              eventDelayMs: 20,
            },
          ),
        ],
      });
      const messages: MessageParam[] = [{ role: "user", content: "the prompt" }];
      const heard: string[] = [];
      const result = await agentLoop(streamed(model), messages, {
        model: "test-model",
        cwd,
        signal: controller.signal,
        emit: (event) => {
          if (event.type !== "text") return;
          heard.push(event.text);
          controller.abort(); // Ctrl-C once the first words are on screen
        },
      });
      expect(heard.length).toBeGreaterThan(0);
      expect(result).toMatchObject({ stopReason: "aborted", turns: 1, toolCalls: 0 });
      expect(messages).toEqual([{ role: "user", content: "the prompt" }]);
      expect(existsSync(join(cwd, "half"))).toBe(false);
      expectValid(messages);
      await expectNextPromptWorks(model, messages, cwd);
    });

    it("stops mid-tool: kills the command, answers the call as interrupted and the rest as not started", async () => {
      const cwd = tempWorkdir();
      writeFileSync(join(cwd, "a.txt"), "a\n");
      const controller = new AbortController();
      const model = new ScriptedModel({
        script: [
          reply([
            toolUse("bash", { command: "echo $$ > pid; sleep 30" }, "toolu_sleep"),
            toolUse("read_file", { path: "a.txt" }, "toolu_read"),
          ]),
        ],
      });
      const messages: MessageParam[] = [{ role: "user", content: "the prompt" }];
      const running = agentLoop(streamed(model), messages, {
        model: "test-model",
        cwd,
        signal: controller.signal,
      });
      await until(() => existsSync(join(cwd, "pid")) && readFileSync(join(cwd, "pid"), "utf8").endsWith("\n"));
      const pid = Number(readFileSync(join(cwd, "pid"), "utf8"));
      controller.abort();
      const result = await running;
      expect(result).toMatchObject({ stopReason: "aborted", turns: 1, toolCalls: 2 });
      expect(() => process.kill(pid, 0)).toThrow(); // the process is gone
      expectValid(messages); // both calls answered, the interrupted one and the one that never started
      const [sleep, read] = blocks(messages[2]);
      expect(sleep).toMatchObject({ tool_use_id: "toolu_sleep", is_error: true });
      expect(sleep.content).toContain("[interrupted; the process group was killed]");
      expect(read).toEqual({
        type: "tool_result",
        tool_use_id: "toolu_read",
        content: "Error [interrupted]: the user interrupted before this call ran.",
        is_error: true,
      });
      expect(model.requests).toHaveLength(1); // no model call after Ctrl-C
      await expectNextPromptWorks(model, messages, cwd);
    });
  });

  it("tells emit each step in order, the streamed text before the turn it belongs to, then the end", async () => {
    const cwd = tempWorkdir();
    const events: string[] = [];
    const model = new ScriptedModel({
      script: [reply([text("Listing."), toolUse("glob", { pattern: "*" })]), textReply("Empty.")],
    });
    const messages: MessageParam[] = [{ role: "user", content: "the prompt" }];
    await agentLoop(streamed(model), messages, {
      model: "test-model",
      cwd,
      emit: (event) => {
        const described = describeEvent(event);
        if (described !== "text" || events.at(-1) !== "text") events.push(described);
      },
    });
    expect(events).toEqual([
      "model_call 1",
      "stream_start",
      "text",
      "turn",
      "tool_call glob",
      "tool_result glob",
      "model_call 2",
      "stream_start",
      "text",
      "turn",
      "end final_answer",
    ]);
    expectValid(messages);
  });

  describe("the send seam", () => {
    /** A turn as a Message, written by hand: the loop needs nothing else from a send. */
    const message = (content: Message["content"], stop_reason: Message["stop_reason"]): Message =>
      ({
        id: "msg_1",
        type: "message",
        role: "assistant",
        model: "test-model",
        content,
        stop_reason,
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 2 },
      }) as Message;

    it("sends each turn through the send it is given, with the request, the run's signal and emit", async () => {
      const cwd = tempWorkdir();
      const controller = new AbortController();
      const seen: { messages: number; tools: number; signal: AbortSignal; told: boolean }[] = [];
      const replies = [
        message(
          [{ type: "tool_use", id: "toolu_1", name: "glob", input: { pattern: "*" } }] as Message["content"],
          "tool_use",
        ),
        message([{ type: "text", text: "Nothing here.", citations: null }], "end_turn"),
      ];
      const send: SendTurn = async (request, signal, emit) => {
        seen.push({ messages: request.messages.length, tools: request.tools?.length ?? 0, signal, told: !!emit });
        emit?.({ type: "text", text: "from the seam" });
        return replies.shift() ?? null;
      };
      const heard: string[] = [];
      const messages: MessageParam[] = [{ role: "user", content: "the prompt" }];
      const result = await agentLoop(send, messages, {
        model: "test-model",
        cwd,
        signal: controller.signal,
        emit: (event) => event.type === "text" && heard.push(event.text),
      });
      expect(result).toMatchObject({ stopReason: "final_answer", turns: 2, toolCalls: 1, finalText: "Nothing here." });
      expect(result.usage).toEqual({ inputTokens: 20, outputTokens: 4 });
      expect(seen).toEqual([
        { messages: 1, tools: ALL_TOOLS.length, signal: controller.signal, told: true },
        { messages: 3, tools: ALL_TOOLS.length, signal: controller.signal, told: true },
      ]);
      expect(heard).toEqual(["from the seam", "from the seam"]); // what the seam tells reaches the listeners
      expectValid(messages);
    });

    it("returns aborted when the send was aborted (it returns null), appending nothing", async () => {
      const controller = new AbortController();
      const send: SendTurn = async () => {
        controller.abort(); // Ctrl-C while the call was out
        return null;
      };
      const messages: MessageParam[] = [{ role: "user", content: "the prompt" }];
      const options = { model: "test-model", cwd: tempWorkdir(), signal: controller.signal };
      const result = await agentLoop(send, messages, options);
      expect(result).toMatchObject({ stopReason: "aborted", turns: 1, toolCalls: 0 });
      expect(messages).toEqual([{ role: "user", content: "the prompt" }]);
    });
  });
});
