import { StreamError } from "@harness/s03-streaming";
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import { describe, expect, it } from "vitest";
import { messageFromChat } from "../src/openai/message-from-chat.ts";
import { readChatStream } from "../src/openai/read-chat-stream.ts";

type Delta = Record<string, unknown>;
const chunk = (delta: Delta, finish: string | null = null): ChatCompletionChunk =>
  ({
    id: "c",
    object: "chat.completion.chunk",
    created: 0,
    model: "m",
    choices: [{ index: 0, delta, finish_reason: finish }],
  }) as ChatCompletionChunk;
async function* chunks(...items: ChatCompletionChunk[]) {
  yield* items;
}

describe("readChatStream", () => {
  it("assembles interleaved fragments of parallel calls by index, parsed only at the end", async () => {
    const completion = await readChatStream(
      chunks(
        chunk({
          tool_calls: [{ index: 0, id: "call_a", type: "function", function: { name: "bash", arguments: "" } }],
        }),
        chunk({
          tool_calls: [{ index: 1, id: "call_b", type: "function", function: { name: "bash", arguments: "" } }],
        }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '{"command":' } }] }),
        chunk({ tool_calls: [{ index: 1, function: { arguments: '{"command":"pwd"}' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '"ls"}' } }] }),
        chunk({}, "tool_calls"),
      ),
    );
    const message = messageFromChat(completion);
    expect(message.content).toEqual([
      { type: "tool_use", id: "call_a", name: "bash", input: { command: "ls" } },
      { type: "tool_use", id: "call_b", name: "bash", input: { command: "pwd" } },
    ]);
  });

  it("keeps a call's first id and name when a server repeats them in every fragment", async () => {
    const fragment = (args: string) =>
      chunk({ tool_calls: [{ index: 0, id: "call_a", function: { name: "bash", arguments: args } }] });
    const completion = await readChatStream(
      chunks(fragment('{"comm'), fragment('and":"ls"}'), chunk({}, "tool_calls")),
    );
    expect(completion.choices[0].message.tool_calls).toEqual([
      { id: "call_a", type: "function", function: { name: "bash", arguments: '{"command":"ls"}' } },
    ]);
  });

  it("reads calls sent whole without an index, by their place", async () => {
    const completion = await readChatStream(
      chunks(
        chunk({
          tool_calls: [
            { id: "a", function: { name: "bash", arguments: "{}" } },
            { id: "b", function: { name: "bash", arguments: "{}" } },
          ],
        }),
        chunk({}, "tool_calls"),
      ),
    );
    expect(completion.choices[0].message.tool_calls?.map((c) => c.id)).toEqual(["a", "b"]);
  });

  it("reads calls sent whole without an index, one per chunk, as separate calls", async () => {
    const completion = await readChatStream(
      chunks(
        chunk({ tool_calls: [{ id: "g1", function: { name: "bash", arguments: '{"command":"echo one"}' } }] }),
        chunk({ tool_calls: [{ id: "g2", function: { name: "read_file", arguments: '{"path":"a"}' } }] }),
        chunk({}, "tool_calls"),
      ),
    );
    const calls = (completion.choices[0].message.tool_calls ?? []) as {
      id: string;
      function: { name: string; arguments: string };
    }[];
    expect(calls.map((c) => [c.id, c.function.name, c.function.arguments])).toEqual([
      ["g1", "bash", '{"command":"echo one"}'],
      ["g2", "read_file", '{"path":"a"}'],
    ]);
  });

  it("gives a call the server sent without an id one of its own, so it runs and gets its result", async () => {
    const completion = await readChatStream(
      chunks(
        chunk({ tool_calls: [{ index: 0, function: { name: "bash", arguments: "{}" } }] }),
        chunk({ tool_calls: [{ index: 1, function: { name: "bash", arguments: "{}" } }] }),
        chunk({}, "tool_calls"),
      ),
    );
    const ids = completion.choices[0].message.tool_calls?.map((c) => c.id) ?? [];
    expect(ids).toEqual(["call_c_0", "call_c_1"]);
    const turn = messageFromChat(completion);
    expect(turn.content.filter((b) => b.type === "tool_use")).toHaveLength(2);
  });

  it("hands text on as it arrives, and tells when content has started", async () => {
    const heard: string[] = [];
    const progress = { opened: true, consumed: false };
    await readChatStream(
      chunks(chunk({ role: "assistant", content: "" }), chunk({ content: "Hi" }), chunk({}, "stop")),
      (event) => {
        if (event.type === "text") heard.push(event.text);
      },
      progress,
    );
    expect(heard).toEqual(["Hi"]);
    expect(progress.consumed).toBe(true);
  });

  it("fails a stream that ends without a finish_reason: a complete-looking call in it is no turn", async () => {
    const cut = readChatStream(
      chunks(
        chunk({
          tool_calls: [{ index: 0, id: "a", function: { name: "bash", arguments: '{"command":"touch RAN"}' } }],
        }),
      ),
    );
    await expect(cut).rejects.toBeInstanceOf(StreamError);
    await expect(cut).rejects.toThrow("the stream ended without a finish_reason");
  });
});
