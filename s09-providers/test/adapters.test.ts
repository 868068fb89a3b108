import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { StreamError } from "@harness/s03-streaming";
import { reply, ScriptedModel, type ScriptStep, text, textReply, toolUse } from "@harness/scripted-model";
import { AgentTurn, stopReasonFor } from "@harness/shared";
import { describe, expect, it } from "vitest";
import { scriptedAdapter } from "../src/connect/create-adapter.ts";
import { isReasoningBlock } from "../src/history-for-format.ts";
import { type TurnRequest, WIRE_FORMATS, type WireFormat } from "../src/provider-adapter.ts";

const bashTool = {
  name: "bash",
  description: "Run a shell command.",
  input_schema: { type: "object" as const, properties: { command: { type: "string" } }, required: ["command"] },
};

function request(messages: MessageParam[] = [{ role: "user", content: "the prompt" }]): TurnRequest {
  return { model: "test-model", max_tokens: 1024, system: "Be brief.", tools: [bashTool], messages };
}

/** One adapter of `format` in front of a scripted model with `script`. */
function setup(format: WireFormat, script: ScriptStep[]) {
  const model = new ScriptedModel({ script });
  const notices: string[] = [];
  const adapter = scriptedAdapter(format, model, {
    maxRetries: 0,
    retryDelayMs: 1,
    notice: (line) => notices.push(line),
  });
  return { model, adapter, notices };
}

/** Stream one turn and read it, as the loop does. */
async function turnOf(format: WireFormat, step: ScriptStep, messages?: MessageParam[]) {
  const { model, adapter } = setup(format, [step]);
  const heard: string[] = [];
  const message = await adapter.streamTurn(request(messages), new AbortController().signal, (event) => {
    if (event.type === "text") heard.push(event.text);
  });
  if (!message) throw new Error("aborted");
  return { turn: AgentTurn.fromResponse(message), heard, model };
}

describe.each(WIRE_FORMATS)("the %s adapter, on the scripted model", (format) => {
  it("streams text as it arrives and returns the whole turn", async () => {
    const answer = "The current branch is main, and the working tree is clean.";
    const { turn, heard } = await turnOf(format, textReply(answer, { usage: { input_tokens: 40, output_tokens: 12 } }));
    expect(turn.text).toBe(answer);
    expect(heard.length).toBeGreaterThan(1);
    expect(heard.join("")).toBe(answer);
    expect(turn.providerStopReason).toBe("end_turn");
    expect(turn.usage).toEqual({ inputTokens: 40, outputTokens: 12 });
    expect(stopReasonFor(turn)).toBe("final_answer");
  });

  it("returns parallel tool calls in order, with their ids and parsed input", async () => {
    const { turn } = await turnOf(
      format,
      reply([
        text("Both at once."),
        toolUse("bash", { command: "git status" }, "call_one"),
        toolUse("bash", { command: "ls -la" }, "call_two"),
      ]),
    );
    expect(turn.toolCalls).toEqual([
      { id: "call_one", name: "bash", input: { command: "git status" } },
      { id: "call_two", name: "bash", input: { command: "ls -la" } },
    ]);
    expect(turn.providerStopReason).toBe("tool_use");
    expect(stopReasonFor(turn)).toBeNull();
  });

  it("turns arguments that do not parse into an input error, never a call's input", async () => {
    const { turn } = await turnOf(
      format,
      reply([{ type: "tool_use", name: "bash", rawInput: '{"command": "touch PWNED",,}', id: "call_bad" }]),
    );
    expect(turn.toolCalls).toHaveLength(1);
    expect(turn.toolCalls[0].input).toEqual({});
    expect(turn.toolCalls[0].inputError).toMatch(/not a JSON object/);
  });

  it("reads a call cut by the output limit as max_tokens, so it never runs", async () => {
    const { turn } = await turnOf(
      format,
      reply([text("Creating"), { type: "tool_use", name: "bash", rawInput: '{"command": "touch PWNED' }], {
        stopReason: "max_tokens",
      }),
    );
    expect(turn.providerStopReason).toBe("max_tokens");
    expect(stopReasonFor(turn)).toBe("max_tokens");
  });

  it("reads a refusal as one: nothing from the turn runs", async () => {
    const { turn } = await turnOf(
      format,
      reply([toolUse("bash", { command: "touch RAN" })], { stopReason: "refusal" }),
    );
    expect(turn.providerStopReason).toBe("refusal");
    expect(stopReasonFor(turn)).toBe("final_answer");
  });

  it("sends the history in its own format, and the scripted model reads it back unchanged", async () => {
    const history: MessageParam[] = [
      { role: "user", content: "list the files" },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Listing." },
          { type: "tool_use", id: "call_1", name: "bash", input: { command: "ls" } },
        ],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "call_1", content: "a.txt\nb.txt" }] },
    ];
    const before = structuredClone(history);
    const { model } = await turnOf(format, textReply("Two files."), history);
    expect(history).toEqual(before); // the adapter never changes the loop's history
    const [sent] = model.requests;
    expect(sent.api).toBe(
      { anthropic: "messages", "openai-chat": "chat-completions", "openai-responses": "responses" }[format],
    );
    expect(sent.body.system).toBe("Be brief.");
    expect(sent.body.tools).toEqual([bashTool]);
    const normalised = sent.body.messages.map((m) => ({
      role: m.role,
      content: typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content,
    }));
    expect(normalised).toEqual([
      { role: "user", content: [{ type: "text", text: "list the files" }] },
      before[1],
      before[2],
    ]);
  });

  it("tells the model a result failed, though only the Messages API has an is_error field", async () => {
    const history: MessageParam[] = [
      { role: "user", content: "list" },
      { role: "assistant", content: [{ type: "tool_use", id: "call_e", name: "bash", input: { command: "ls /x" } }] },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "call_e",
            content: "ls: /x: No such file\n[exit code 2]",
            is_error: true,
          },
        ],
      },
    ];
    const { model } = await turnOf(format, textReply("It is not there."), history);
    expect(model.requests[0].body.messages[2].content).toEqual([
      { type: "tool_result", tool_use_id: "call_e", content: "ls: /x: No such file\n[exit code 2]", is_error: true },
    ]);
  });

  it("keeps its own reasoning in the history and sends it back as the provider wants it", async () => {
    const { model, adapter } = setup(format, [
      reply([
        { type: "thinking", thinking: "I should list first.", signature: "sig-1" },
        toolUse("bash", { command: "ls" }, "call_r"),
      ]),
      textReply("Done."),
    ]);
    const history: MessageParam[] = [{ role: "user", content: "list" }];
    const signal = new AbortController().signal;
    const first = AgentTurn.fromResponse((await adapter.streamTurn(request(history), signal)) ?? fail());
    const reasoning: unknown = first.historyContent[0];
    if (format === "anthropic") expect(reasoning).toMatchObject({ type: "thinking", signature: "sig-1" });
    else expect(isReasoningBlock(reasoning) && reasoning.format === format).toBe(true);
    history.push({ role: "assistant", content: [...first.historyContent] });
    history.push({ role: "user", content: [{ type: "tool_result", tool_use_id: "call_r", content: "a.txt" }] });
    // the scripted model refuses a turn whose reasoning does not come back as it went out
    const second = await adapter.streamTurn(request(history), signal);
    expect(second && AgentTurn.fromResponse(second).text).toBe("Done.");
    const sentBack = model.requests[1].body.messages[1].content as { type: string; thinking?: string }[];
    expect(sentBack[0]).toMatchObject({ type: "thinking", thinking: "I should list first." });
  });

  it("returns null when the call is aborted mid-stream, and no partial turn", async () => {
    const { adapter } = setup(format, [textReply("A slow answer, streamed piece by piece.", { eventDelayMs: 40 })]);
    const controller = new AbortController();
    const heard: string[] = [];
    const pending = adapter.streamTurn(request(), controller.signal, (event) => {
      if (event.type !== "text") return;
      heard.push(event.text);
      controller.abort();
    });
    await expect(pending).resolves.toBeNull();
    expect(heard).toHaveLength(1);
  });

  it("sends a stream that failed before its content again, and fails one cut after it", async () => {
    const speech = textReply("I will look at the files first, then answer.");
    const again = setup(format, [{ kind: "cut", afterEvents: 1, reply: speech }, textReply("Recovered.")]);
    const turn = await again.adapter.streamTurn(request(), new AbortController().signal);
    expect(turn && AgentTurn.fromResponse(turn).text).toBe("Recovered.");
    expect(again.model.requests).toHaveLength(2);

    const cut = setup(format, [{ kind: "cut", afterEvents: 4, reply: speech }, textReply("never")]);
    await expect(cut.adapter.streamTurn(request(), new AbortController().signal)).rejects.toBeInstanceOf(StreamError);
    expect(cut.model.requests).toHaveLength(1);
  });

  it("fails a stream that ends without its last event: a complete call in it never returns", async () => {
    const { adapter } = setup(format, [
      { kind: "no_message_stop", reply: reply([toolUse("bash", { command: "touch RAN" })]) },
    ]);
    await expect(adapter.streamTurn(request(), new AbortController().signal)).rejects.toBeInstanceOf(StreamError);
  });
});

describe("reasoning across providers", () => {
  const histories: Record<WireFormat, MessageParam[]> = {
    anthropic: [
      { role: "user", content: "list" },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "Anthropic thinking.", signature: "sig-anthropic" },
          { type: "tool_use", id: "call_1", name: "bash", input: { command: "ls" } },
        ],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "call_1", content: "a.txt" }] },
    ],
    "openai-chat": [],
    "openai-responses": [],
  };

  it.each(["openai-chat", "openai-responses"] as const)(
    "drops Anthropic's signed thinking on purpose when the history goes to %s, and says so once",
    async (format) => {
      const { model, adapter, notices } = setup(format, [textReply("One file."), textReply("Still one.")]);
      const signal = new AbortController().signal;
      await adapter.streamTurn(request(histories.anthropic), signal);
      await adapter.streamTurn(request(histories.anthropic), signal);
      expect(notices).toEqual([
        `Not sent to ${format}: 1 thinking block from anthropic (their signatures verify only at Anthropic).`,
      ]);
      const sent = model.requests[0].body.messages[1].content as { type: string }[];
      expect(sent.map((b) => b.type)).toEqual(["tool_use"]);
      expect(histories.anthropic[1].content).toHaveLength(2); // the history itself keeps it
    },
  );

  it("drops OpenAI's encrypted reasoning when the history goes to Anthropic, leaving the turn valid", async () => {
    const history: MessageParam[] = [
      { role: "user", content: "think" },
      {
        role: "assistant",
        content: [
          {
            type: "reasoning",
            format: "openai-responses",
            text: "thought",
            item: { type: "reasoning", id: "rs_1", summary: [], encrypted_content: "gAAAA" },
          },
        ] as unknown as MessageParam["content"],
      },
      { role: "user", content: "and now?" },
    ];
    const { model, adapter, notices } = setup("anthropic", [textReply("Now this.")]);
    await adapter.streamTurn(request(history), new AbortController().signal);
    expect(notices).toEqual([
      "Not sent to anthropic: 1 reasoning block from openai-responses (their encrypted_content decrypts only at OpenAI).",
    ]);
    expect(model.requests[0].body.messages[1]).toEqual({
      role: "assistant",
      content: [{ type: "text", text: "(reasoning only, not sent to this provider)" }],
    });
  });
});

function fail(): never {
  throw new Error("the turn was aborted");
}
