import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { APIError } from "@anthropic-ai/sdk";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { demoBrain, reply, ScriptedModel, type ScriptStep, text, textReply, toolUse } from "@harness/scripted-model";
import {
  type AgentLoopResult,
  appendUserText,
  DEFAULT_MAX_TOKENS,
  DEFAULT_MAX_TURNS,
  historyProblems,
  type LoopEvent,
} from "@harness/shared";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { type AgentLoopOptions, agentLoop } from "../src/agent-loop.ts";
import { toolMap } from "../src/dispatch.ts";
import { defineTool, toApiTool } from "../src/tool.ts";
import { ALL_TOOLS } from "../src/tools/index.ts";
import { tempWorkdir } from "./temp-workdir.ts";

/** Run the loop on one prompt against a scripted model; return what it sent and returned. */
async function run(script: ScriptStep[], options: Partial<AgentLoopOptions> = {}) {
  const model = new ScriptedModel({ script });
  const messages: MessageParam[] = [{ role: "user", content: "the prompt" }];
  const cwd = options.cwd ?? tempWorkdir();
  const result = await agentLoop(model.client({ maxRetries: 0 }), messages, { model: "test-model", cwd, ...options });
  return { model, messages, result, cwd };
}

/** An event in a few words: its type and what it is about. */
function describeEvent(event: LoopEvent): string {
  switch (event.type) {
    case "model_call":
      return `model_call ${event.turnNumber}`;
    case "turn":
      return `turn ${event.turn.text}`;
    case "tool_call":
    case "tool_result":
      return `${event.type} ${event.call.name}`;
    case "end":
      return `end ${event.result.stopReason}`;
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

/** After any exit: a next prompt is accepted (the scripted model rejects an invalid history with a 400). */
async function expectNextPromptWorks(model: ScriptedModel, messages: MessageParam[], cwd: string): Promise<void> {
  appendUserText(messages, "are you still there?");
  model.push(textReply("Still here."));
  const next = await agentLoop(model.client({ maxRetries: 0 }), messages, { model: "test-model", cwd });
  expect(next).toMatchObject({ stopReason: "final_answer", finalText: "Still here." });
  expect(historyProblems(model.requests.at(-1)!.body.messages)).toEqual([]);
  expectValid(messages);
}

describe("agentLoop", () => {
  it("returns a final answer in one turn without tools, offering the six tools", async () => {
    const { model, messages, result } = await run([textReply("Hello.")]);
    expect(result).toEqual<AgentLoopResult>({
      stopReason: "final_answer",
      turns: 1,
      toolCalls: 0,
      finalText: "Hello.",
      providerStopReason: "end_turn",
      usage: expect.objectContaining({ inputTokens: expect.any(Number) }),
    });
    const sent = model.requests[0].body;
    expect(sent).toMatchObject({ model: "test-model", max_tokens: DEFAULT_MAX_TOKENS });
    expect(sent.stream).toBeUndefined(); // one whole response per turn: streaming is s03's
    expect(sent.tools).toEqual(ALL_TOOLS.map(toApiTool));
    expect(messages).toEqual([
      { role: "user", content: "the prompt" },
      { role: "assistant", content: [{ type: "text", text: "Hello." }] },
    ]);
    expectValid(messages);
  });

  it("answers every call of a turn in one user message, in tool_use order, then answers", async () => {
    const cwd = tempWorkdir();
    for (const name of ["a.txt", "b.txt", "c.txt"]) writeFileSync(join(cwd, name), `${name} text\n`);
    const { model, messages, result } = await run(
      [
        reply([
          text("Reading all three."),
          toolUse("read_file", { path: "a.txt" }, "toolu_a"),
          toolUse("read_file", { path: "b.txt" }, "toolu_b"),
          toolUse("read_file", { path: "c.txt" }, "toolu_c"),
        ]),
        textReply("Read them."),
      ],
      { cwd },
    );
    expect(result).toMatchObject({ stopReason: "final_answer", turns: 2, toolCalls: 3, finalText: "Read them." });
    expect(blocks(model.requests[1].body.messages.at(-1))).toEqual([
      { type: "tool_result", tool_use_id: "toolu_a", content: "1\ta.txt text", is_error: false },
      { type: "tool_result", tool_use_id: "toolu_b", content: "1\tb.txt text", is_error: false },
      { type: "tool_result", tool_use_id: "toolu_c", content: "1\tc.txt text", is_error: false },
    ]);
    expectValid(messages);
  });

  it("sums the usage of every model call", async () => {
    const { messages, result } = await run([
      reply([toolUse("glob", { pattern: "*" })], { usage: { input_tokens: 100, output_tokens: 10 } }),
      textReply("Nothing here.", { usage: { input_tokens: 150, output_tokens: 5 } }),
    ]);
    expect(result.usage).toEqual({ inputTokens: 250, outputTokens: 15 });
    expectValid(messages);
  });

  it("never runs a tool call whose JSON input was cut, and answers it with invalid_arguments", async () => {
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

  it("never runs a tool call whose JSON input is malformed", async () => {
    const { messages, cwd } = await run([
      reply([{ type: "tool_use", name: "bash", rawInput: '{"command": "touch pwned",,}', id: "toolu_bad" }]),
      textReply("Oops."),
    ]);
    expect(existsSync(join(cwd, "pwned"))).toBe(false);
    expect(blocks(messages[2])[0].content).toMatch(/^Error \[invalid_arguments\]/);
    expectValid(messages);
  });

  it("answers a call to an unknown tool with unknown_tool and goes on", async () => {
    const { messages, result } = await run([
      reply([toolUse("launch_rockets", { count: 3 }, "toolu_x")]),
      textReply("No rockets then."),
    ]);
    expect(result).toMatchObject({ stopReason: "final_answer", turns: 2, toolCalls: 1 });
    expect(blocks(messages[2])).toEqual([
      {
        type: "tool_result",
        tool_use_id: "toolu_x",
        content:
          'Error [unknown_tool]: there is no tool "launch_rockets". Tools: bash, read_file, write_file, edit_file, glob, grep.',
        is_error: true,
      },
    ]);
    expectValid(messages);
  });

  it("answers invalid arguments with an error that names the field", async () => {
    const { messages } = await run([reply([toolUse("read_file", { path: 7 })]), textReply("Fixed.")]);
    expect(blocks(messages[2])[0]).toMatchObject({ is_error: true });
    expect(blocks(messages[2])[0].content).toMatch(/^Error \[invalid_arguments\]: read_file: path: /);
    expectValid(messages);
  });

  it("answers a handler that throws with handler_failed and goes on", async () => {
    const explode = defineTool({
      name: "explode",
      description: "Throws.",
      schema: z.object({}),
      concurrencySafe: false,
      run: async () => {
        throw new Error("boom");
      },
    });
    const { messages, result } = await run([reply([toolUse("explode", {})]), textReply("It broke.")], {
      tools: toolMap([explode]),
    });
    expect(result.stopReason).toBe("final_answer");
    expect(blocks(messages[2])[0]).toMatchObject({ content: "Error [handler_failed]: explode: boom", is_error: true });
    expectValid(messages);
  });

  it.each(ALL_TOOLS)("offers $name and routes a call to it through the map, to its own parse", async (tool) => {
    // no tool takes an empty input: the answer is the tool's own refusal, so the map found it
    const refusal = tool.parse({});
    const { model, messages, result } = await run([reply([toolUse(tool.name, {}, "toolu_1")]), textReply("Done.")]);
    expect(model.requests[0].body.tools?.map((t) => (t as { name: string }).name)).toContain(tool.name);
    expect(refusal.ok).toBe(false);
    expect(blocks(messages[2])).toEqual([
      {
        type: "tool_result",
        tool_use_id: "toolu_1",
        content: `Error [invalid_arguments]: ${tool.name}: ${refusal.ok ? "" : refusal.error}`,
        is_error: true,
      },
    ]);
    expect(result).toMatchObject({ stopReason: "final_answer", turns: 2, toolCalls: 1 });
    expectValid(messages);
  });

  it("offers only the tools it is given", async () => {
    const tools = toolMap(ALL_TOOLS.filter((t) => t.name === "read_file"));
    const { model, messages } = await run([textReply("ok")], { tools });
    expect(model.requests[0].body.tools?.map((t) => (t as { name: string }).name)).toEqual(["read_file"]);
    expectValid(messages);
  });

  describe("the stop-reason table", () => {
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

  describe("an API error", () => {
    it("is thrown after the SDK's retries, with the history as it was before the call", async () => {
      const cwd = tempWorkdir();
      const model = new ScriptedModel({
        script: [reply([toolUse("glob", { pattern: "*" }, "toolu_1")]), { kind: "http_error", status: 400 }],
      });
      const messages: MessageParam[] = [{ role: "user", content: "the prompt" }];
      const error = await agentLoop(model.client({ maxRetries: 0 }), messages, { model: "test-model", cwd }).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(APIError);
      expect((error as APIError).status).toBe(400);
      expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
      expect(blocks(messages[2])[0]).toMatchObject({ type: "tool_result", tool_use_id: "toolu_1" });
      expect(model.requests.at(-1)?.body.messages).toEqual(messages);
      expectValid(messages);
      await expectNextPromptWorks(model, messages, cwd);
    });
  });

  it("runs the demo brain's several-files prompt: three reads in one turn, then an answer from them", async () => {
    const cwd = tempWorkdir();
    writeFileSync(join(cwd, "package.json"), '{"name":"demo"}\n');
    writeFileSync(join(cwd, "README.md"), "# Demo\n\nA demo.\n");
    writeFileSync(join(cwd, ".gitignore"), "node_modules\n");
    const model = new ScriptedModel({ brain: demoBrain });
    const messages: MessageParam[] = [{ role: "user", content: "Read package.json, README.md and .gitignore" }];
    const result = await agentLoop(model.client(), messages, { model: "test-model", cwd });
    expect(result).toMatchObject({ stopReason: "final_answer", turns: 2, toolCalls: 3 });
    expect(result.finalText).toContain("README.md: 3 lines, starting `# Demo`");
    expectValid(messages);
  });

  it("tells emit each step in order, each call as it starts and its result as it lands, then the end", async () => {
    const cwd = tempWorkdir();
    const events: string[] = [];
    const model = new ScriptedModel({
      script: [
        reply([text("Listing."), toolUse("glob", { pattern: "*" }), toolUse("grep", { pattern: "x" })]),
        textReply("Empty."),
      ],
    });
    const messages: MessageParam[] = [{ role: "user", content: "the prompt" }];
    const result = await agentLoop(model.client(), messages, {
      model: "test-model",
      cwd,
      emit: (event) => events.push(describeEvent(event)),
    });
    // two reads run at once: both start before either result lands
    expect(events.slice(0, 4)).toEqual(["model_call 1", "turn Listing.", "tool_call glob", "tool_call grep"]);
    expect(events.slice(4, 6).sort()).toEqual(["tool_result glob", "tool_result grep"]);
    expect(events.slice(6)).toEqual(["model_call 2", "turn Empty.", "end final_answer"]);
    expect(result).toMatchObject({ stopReason: "final_answer", turns: 2, toolCalls: 2 });
    expectValid(messages);
  });
});
