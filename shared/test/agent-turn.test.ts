import type { Message, MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { jsonFixtures, readJsonFixture } from "@harness/testkit";
import { describe, expect, it } from "vitest";
import { AgentTurn, MISSING_TOOL_NAME } from "../src/agent-turn.ts";
import { historyProblems } from "../src/history-problems.ts";
import { MAX_INPUT_DEPTH, nestedDeeperThan } from "../src/nested-deeper-than.ts";
import { stopReasonFor } from "../src/stop-reason-for.ts";

/** A response with these blocks; anything the test leaves out is what the API would send. */
function response(content: unknown[], extra: Record<string, unknown> = {}): Message {
  return {
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: "claude-test",
    content,
    stop_reason: "end_turn",
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 5 },
    ...extra,
  } as unknown as Message;
}

/** The history a loop would send next: the prompt, this turn, and an answer to each tool call. */
function historyAfter(turn: AgentTurn): MessageParam[] {
  const history: MessageParam[] = [
    { role: "user", content: "prompt" },
    { role: "assistant", content: [...turn.historyContent] },
  ];
  if (turn.toolCalls.length > 0) {
    history.push({
      role: "user",
      content: turn.toolCalls.map((c) => ({ type: "tool_result" as const, tool_use_id: c.id, content: "ok" })),
    });
  }
  return history;
}

describe("AgentTurn.fromResponse", () => {
  it("reads a text-only response as text with no tool calls", () => {
    const turn = AgentTurn.fromResponse(response([{ type: "text", text: "Hello." }]));
    expect(turn.text).toBe("Hello.");
    expect(turn.toolCalls).toEqual([]);
    expect(turn.providerStopReason).toBe("end_turn");
    expect(turn.usage).toEqual({ inputTokens: 10, outputTokens: 5 });
    expect(turn.historyContent).toEqual([{ type: "text", text: "Hello." }]);
  });

  it("joins several text blocks with a newline", () => {
    const turn = AgentTurn.fromResponse(
      response([
        { type: "text", text: "one" },
        { type: "text", text: "two" },
      ]),
    );
    expect(turn.text).toBe("one\ntwo");
    expect(turn.historyContent).toHaveLength(2);
  });

  it("keeps several tool calls in the order the model wrote them", () => {
    const turn = AgentTurn.fromResponse(
      response(
        [
          { type: "text", text: "Two commands." },
          { type: "tool_use", id: "toolu_a", name: "bash", input: { command: "ls" } },
          { type: "tool_use", id: "toolu_b", name: "read_file", input: { path: "x" } },
        ],
        { stop_reason: "tool_use" },
      ),
    );
    expect(turn.toolCalls).toEqual([
      { id: "toolu_a", name: "bash", input: { command: "ls" } },
      { id: "toolu_b", name: "read_file", input: { path: "x" } },
    ]);
    expect(turn.historyContent.map((b) => b.type)).toEqual(["text", "tool_use", "tool_use"]);
    expect(turn.text).toBe("Two commands.");
    expect(historyProblems(historyAfter(turn))).toEqual([]);
  });

  it("keeps a thinking block with its signature in the history, out of the text", () => {
    const thinking = { type: "thinking", thinking: "Let me think.", signature: "sig-abc" };
    const turn = AgentTurn.fromResponse(response([thinking, { type: "text", text: "Done." }]));
    expect(turn.historyContent[0]).toEqual(thinking);
    expect(turn.text).toBe("Done.");
  });

  it("keeps redacted thinking unchanged in the history", () => {
    const redacted = { type: "redacted_thinking", data: "opaque-bytes" };
    const turn = AgentTurn.fromResponse(response([redacted, { type: "text", text: "ok" }]));
    expect(turn.historyContent[0]).toEqual(redacted);
  });

  it("records empty content as one text block saying so, never as an empty message", () => {
    const turn = AgentTurn.fromResponse(response([], { stop_reason: "refusal" }));
    expect(turn.text).toBe("");
    expect(turn.toolCalls).toEqual([]);
    expect(turn.historyContent).toEqual([{ type: "text", text: '(no content; the model stopped with "refusal")' }]);
    expect(historyProblems(historyAfter(turn))).toEqual([]);
  });

  it("records content of only empty text blocks as the no-content block", () => {
    const turn = AgentTurn.fromResponse(response([{ type: "text", text: "" }], { stop_reason: "max_tokens" }));
    expect(turn.historyContent).toEqual([{ type: "text", text: '(no content; the model stopped with "max_tokens")' }]);
    expect(historyProblems(historyAfter(turn))).toEqual([]);
  });

  it("drops a text block of whitespace only, which the API would reject, and keeps the tool call after it", () => {
    const call = { type: "tool_use", id: "toolu_1", name: "bash", input: { command: "ls" } };
    const turn = AgentTurn.fromResponse(response([{ type: "text", text: "\n\n" }, call, { type: "text", text: " " }]));
    expect(turn.text).toBe("");
    expect(turn.historyContent).toEqual([call]);
    expect(turn.toolCalls).toEqual([{ id: "toolu_1", name: "bash", input: { command: "ls" } }]);
    expect(historyProblems(historyAfter(turn))).toEqual([]);
  });

  it("names a null stop reason in the no-content block", () => {
    const turn = AgentTurn.fromResponse(response([], { stop_reason: null }));
    expect(turn.providerStopReason).toBeNull();
    expect(turn.historyContent).toEqual([{ type: "text", text: '(no content; the model stopped with "null")' }]);
  });

  it("keeps block types it does not know in the history, unchanged", () => {
    const serverToolUse = { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "x" } };
    const fromTheFuture = { type: "hologram", payload: { depth: 3 } };
    const turn = AgentTurn.fromResponse(response([serverToolUse, fromTheFuture, { type: "text", text: "hi" }]));
    expect(turn.historyContent).toEqual([serverToolUse, fromTheFuture, { type: "text", text: "hi" }]);
    expect(turn.toolCalls).toEqual([]);
    expect(turn.text).toBe("hi");
  });

  it("reads missing usage as zeros", () => {
    const turn = AgentTurn.fromResponse(response([{ type: "text", text: "hi" }], { usage: undefined }));
    expect(turn.usage).toEqual({ inputTokens: 0, outputTokens: 0 });
  });

  it("reads the prompt cache's counts when there are any, and leaves them out when there are none", () => {
    const usage = { input_tokens: 12, output_tokens: 3, cache_read_input_tokens: 2048, cache_creation_input_tokens: 0 };
    const cached = AgentTurn.fromResponse(response([{ type: "text", text: "hi" }], { usage }));
    expect(cached.usage).toEqual({ inputTokens: 12, outputTokens: 3, cacheReadInputTokens: 2048 });
    const none = { input_tokens: 12, output_tokens: 3, cache_read_input_tokens: 0, cache_creation_input_tokens: null };
    expect(AgentTurn.fromResponse(response([{ type: "text", text: "hi" }], { usage: none })).usage).toEqual({
      inputTokens: 12,
      outputTokens: 3,
    });
  });

  it("reads usage counts that are not positive numbers as zeros", () => {
    const turn = AgentTurn.fromResponse(
      response([{ type: "text", text: "hi" }], { usage: { input_tokens: "12", output_tokens: -3 } }),
    );
    expect(turn.usage).toEqual({ inputTokens: 0, outputTokens: 0 });
  });

  it.each([
    ["no id", { type: "tool_use", name: "bash", input: {} }],
    ["an empty id", { type: "tool_use", id: "", name: "bash", input: {} }],
    ["a numeric id", { type: "tool_use", id: 7, name: "bash", input: {} }],
  ])("drops a tool_use with %s from the calls and the history", (_what, block) => {
    const turn = AgentTurn.fromResponse(
      response(
        [{ type: "text", text: "calling" }, block, { type: "tool_use", id: "toolu_ok", name: "bash", input: {} }],
        {
          stop_reason: "tool_use",
        },
      ),
    );
    expect(turn.toolCalls.map((c) => c.id)).toEqual(["toolu_ok"]);
    expect(turn.historyContent).toEqual([
      { type: "text", text: "calling" },
      { type: "tool_use", id: "toolu_ok", name: "bash", input: {} },
    ]);
    expect(historyProblems(historyAfter(turn))).toEqual([]);
  });

  it.each([
    ["no name", { type: "tool_use", id: "toolu_x", input: { command: "ls" } }],
    ["an empty name", { type: "tool_use", id: "toolu_x", name: "", input: { command: "ls" } }],
  ])("keeps a tool_use with %s as a call named MISSING_TOOL_NAME, which no tool has", (_what, block) => {
    const turn = AgentTurn.fromResponse(response([block], { stop_reason: "tool_use" }));
    expect(turn.toolCalls).toEqual([{ id: "toolu_x", name: MISSING_TOOL_NAME, input: { command: "ls" } }]);
    expect(turn.historyContent).toEqual([
      { type: "tool_use", id: "toolu_x", name: MISSING_TOOL_NAME, input: { command: "ls" } },
    ]);
    expect(historyProblems(historyAfter(turn))).toEqual([]);
  });

  it("gives a tool_use whose input is malformed JSON text an inputError and {} in the history", () => {
    const turn = AgentTurn.fromResponse(
      response([{ type: "tool_use", id: "toolu_1", name: "bash", input: '{"command": "ls' }], {
        stop_reason: "tool_use",
      }),
    );
    expect(turn.toolCalls).toHaveLength(1);
    expect(turn.toolCalls[0]).toMatchObject({ id: "toolu_1", name: "bash", input: {} });
    expect(turn.toolCalls[0].inputError).toContain('{"command": "ls');
    expect(turn.historyContent).toEqual([{ type: "tool_use", id: "toolu_1", name: "bash", input: {} }]);
    expect(historyProblems(historyAfter(turn))).toEqual([]);
  });

  it("parses a tool_use whose input is a JSON object in a string", () => {
    const turn = AgentTurn.fromResponse(
      response([{ type: "tool_use", id: "toolu_1", name: "bash", input: '{"command":"ls"}' }]),
    );
    expect(turn.toolCalls[0]).toEqual({ id: "toolu_1", name: "bash", input: { command: "ls" } });
    expect(turn.historyContent[0]).toEqual({ type: "tool_use", id: "toolu_1", name: "bash", input: { command: "ls" } });
  });

  it("reads an empty input string as {} without an error (a tool with no arguments)", () => {
    const turn = AgentTurn.fromResponse(response([{ type: "tool_use", id: "toolu_1", name: "now", input: "" }]));
    expect(turn.toolCalls[0]).toEqual({ id: "toolu_1", name: "now", input: {} });
  });

  it.each([
    ["a JSON array in a string", "[1, 2]"],
    ["a JSON number in a string", "42"],
    ["an array", [1, 2]],
    ["a number", 42],
  ])("gives a tool_use whose input is %s an inputError", (_what, input) => {
    const turn = AgentTurn.fromResponse(response([{ type: "tool_use", id: "toolu_1", name: "bash", input }]));
    expect(turn.toolCalls[0].inputError).toMatch(/not a JSON object/);
    expect(turn.toolCalls[0].input).toEqual({});
    expect(turn.historyContent[0]).toMatchObject({ input: {} });
  });

  it.each([
    ["an object", () => JSON.parse(`{"x":${"[".repeat(10_000)}${"]".repeat(10_000)}}`)],
    ["an array", () => JSON.parse(`${"[".repeat(10_000)}${"]".repeat(10_000)}`)],
    ["a string", () => `{"x":${"[".repeat(10_000)}${"]".repeat(10_000)}}`],
  ])(
    "gives a tool_use whose input nests deeper than MAX_INPUT_DEPTH, as %s, an inputError, and {} in the history",
    (_what, input) => {
      const turn = AgentTurn.fromResponse(
        response([{ type: "tool_use", id: "toolu_1", name: "bash", input: input() }]),
      );
      expect(turn.toolCalls[0]).toEqual({
        id: "toolu_1",
        name: "bash",
        input: {},
        inputError: `the input nests deeper than ${MAX_INPUT_DEPTH} levels`,
      });
      expect(JSON.stringify(turn.historyContent)).toBe('[{"type":"tool_use","id":"toolu_1","name":"bash","input":{}}]');
    },
  );

  it("keeps input nested exactly MAX_INPUT_DEPTH levels deep", () => {
    const input = JSON.parse(`{"x":${"[".repeat(MAX_INPUT_DEPTH - 1)}${"]".repeat(MAX_INPUT_DEPTH - 1)}}`);
    expect(nestedDeeperThan(input, MAX_INPUT_DEPTH)).toBe(false);
    expect(nestedDeeperThan({ y: input }, MAX_INPUT_DEPTH)).toBe(true);
    const turn = AgentTurn.fromResponse(response([{ type: "tool_use", id: "toolu_1", name: "bash", input }]));
    expect(turn.toolCalls[0].inputError).toBeUndefined();
  });

  it("clips a long malformed input in the inputError", () => {
    const input = `{"command": "${"x".repeat(5000)}`;
    const turn = AgentTurn.fromResponse(response([{ type: "tool_use", id: "toolu_1", name: "bash", input }]));
    expect(turn.toolCalls[0].inputError!.length).toBeLessThan(300);
  });

  it("reads a missing or null input as {} without an error", () => {
    const turn = AgentTurn.fromResponse(
      response([
        { type: "tool_use", id: "toolu_1", name: "a" },
        { type: "tool_use", id: "toolu_2", name: "b", input: null },
      ]),
    );
    expect(turn.toolCalls).toEqual([
      { id: "toolu_1", name: "a", input: {} },
      { id: "toolu_2", name: "b", input: {} },
    ]);
  });

  it("keeps extra fields of a tool_use block (such as caller) in the history", () => {
    const block = {
      type: "tool_use",
      id: "toolu_1",
      name: "bash",
      input: { command: "ls" },
      caller: { type: "direct" },
    };
    const turn = AgentTurn.fromResponse(response([block]));
    expect(turn.historyContent[0]).toEqual(block);
  });

  it.each([
    ["null", null],
    ["a string", "not a message"],
    ["content that is not an array", { content: "text", stop_reason: 5 }],
    ["blocks that are not objects", { content: [null, 3, "x", [], { type: 9 }] }],
  ])("never throws on %s", (_what, value) => {
    const turn = AgentTurn.fromResponse(value as unknown as Message);
    expect(turn.toolCalls).toEqual([]);
    expect(turn.providerStopReason).toBeNull();
    expect(turn.historyContent).toHaveLength(1);
  });

  it("does not change the response it reads", () => {
    const message = response([
      { type: "tool_use", id: "toolu_1", name: "bash", input: "not json" },
      { type: "text", text: "x" },
    ]);
    const before = structuredClone(message);
    AgentTurn.fromResponse(message);
    expect(message).toEqual(before);
  });

  it("gives equal turns for equal responses", () => {
    const content = [
      { type: "thinking", thinking: "hm", signature: "s" },
      { type: "text", text: "Running it." },
      { type: "tool_use", id: "toolu_1", name: "bash", input: { command: "ls" } },
      { type: "tool_use", id: "toolu_2", name: "bash", input: "{bad" },
    ];
    const a = AgentTurn.fromResponse(response(structuredClone(content), { stop_reason: "tool_use" }));
    const b = AgentTurn.fromResponse(response(structuredClone(content), { stop_reason: "tool_use" }));
    expect(a).toEqual(b);
    expect(a).not.toBe(b);
  });
});

describe("AgentTurn.fromResponse on recorded API responses", () => {
  it("has recorded responses to read", () => {
    expect(jsonFixtures.length).toBeGreaterThanOrEqual(6);
  });

  it.each(jsonFixtures)("reads %s into a turn whose history is valid", (name) => {
    const message = readJsonFixture(name);
    const turn = AgentTurn.fromResponse(message);
    expect(turn.providerStopReason).toBe(message.stop_reason);
    expect(turn.usage).toEqual({ inputTokens: message.usage.input_tokens, outputTokens: message.usage.output_tokens });
    const texts = message.content.flatMap((b) => (b.type === "text" ? [b.text] : []));
    expect(turn.text).toBe(texts.join("\n"));
    const toolUses = message.content.filter((b) => b.type === "tool_use");
    expect(turn.toolCalls.map((c) => [c.id, c.name, c.input])).toEqual(toolUses.map((b) => [b.id, b.name, b.input]));
    expect(turn.toolCalls.every((c) => c.inputError === undefined)).toBe(true);
    if (message.content.length > 0) expect(turn.historyContent).toEqual(message.content);
    expect(historyProblems(historyAfter(turn))).toEqual([]);
    // a recorded stop reason goes through the table without surprises
    expect(stopReasonFor(turn)).toBe(toolUses.length > 0 ? null : "final_answer");
  });

  it("keeps the thinking signature of a recorded reasoning response", () => {
    const message = readJsonFixture("anthropic-claude-opus-5-reasoning-high.1");
    const turn = AgentTurn.fromResponse(message);
    const thinking = turn.historyContent.find((b) => b.type === "thinking");
    expect(thinking).toMatchObject({ signature: expect.stringMatching(/^CAIS/) });
  });

  it("carries the unknown caller field of a recorded tool call", () => {
    const turn = AgentTurn.fromResponse(readJsonFixture("issue-13430-thinking-tool-call"));
    expect(turn.toolCalls).toEqual([{ id: "toolu_017R7ACrx7NF7sLDDtvdQ1u9", name: "checkSandboxErrors", input: {} }]);
    expect(turn.historyContent.map((b) => b.type)).toEqual(["thinking", "tool_use"]);
    expect(turn.historyContent[1]).toMatchObject({ caller: { type: "direct" } });
  });

  it("records the recorded refusal's empty content as the no-content block and stops on it", () => {
    const turn = AgentTurn.fromResponse(readJsonFixture("anthropic-refusal"));
    expect(turn.providerStopReason).toBe("refusal");
    expect(turn.historyContent).toEqual([{ type: "text", text: '(no content; the model stopped with "refusal")' }]);
    expect(stopReasonFor(turn)).toBe("final_answer");
  });

  it("reads escaped quotes in a recorded tool input", () => {
    const turn = AgentTurn.fromResponse(readJsonFixture("anthropic-issue-11719-quoted-tool-input"));
    const tasks = turn.toolCalls[0].input.tasks as { description: string }[];
    expect(tasks[0].description).toContain('"What should I do next after this run?"');
  });
});

describe("AgentTurn.fromResponse with a repeated tool_use id", () => {
  it("keeps every block of a shared id as a call that does not run, each under an id of its own", () => {
    const turn = AgentTurn.fromResponse({
      content: [
        { type: "tool_use", id: "toolu_same", name: "bash", input: { command: "echo 1" } },
        { type: "tool_use", id: "toolu_same_2", name: "bash", input: { command: "echo 2" } },
        { type: "tool_use", id: "toolu_same", name: "bash", input: { command: "echo 3" } },
      ],
      stop_reason: "tool_use",
    } as never);
    const refused = "another call in this turn has its id (toolu_same): none of them ran";
    expect(turn.toolCalls).toEqual([
      { id: "toolu_same", name: "bash", input: {}, inputError: refused },
      { id: "toolu_same_2", name: "bash", input: { command: "echo 2" } },
      { id: "toolu_same_3", name: "bash", input: {}, inputError: refused },
    ]);
    expect(turn.historyContent.map((b) => (b.type === "tool_use" ? b.id : b.type))).toEqual([
      "toolu_same",
      "toolu_same_2",
      "toolu_same_3",
    ]);
    expect(historyProblems(historyAfter(turn))).toEqual([]);
  });
});
