import type { MessageCreateParamsNonStreaming, MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { describe, expect, it } from "vitest";
import { cached } from "../src/cached.ts";
import { anchorAt, blockCount, LOOKBACK_BLOCKS, MAX_BREAKPOINTS, placeBreakpoints } from "../src/place-breakpoints.ts";
import { markers } from "./run-cli.ts";

const MARK = { type: "ephemeral" };
const tool = (name: string) => ({ name, input_schema: { type: "object" as const } });

function request(messages: MessageParam[], extra: Partial<MessageCreateParamsNonStreaming> = {}) {
  return { model: "m", max_tokens: 10, system: "Be brief.", tools: [tool("a"), tool("b")], messages, ...extra };
}

/** A conversation of `turns` tool calls, each answered, then the user's text. */
function conversation(turns: number, callsPerTurn = 1): MessageParam[] {
  const messages: MessageParam[] = [{ role: "user", content: "go" }];
  for (let t = 0; t < turns; t++) {
    const ids = Array.from({ length: callsPerTurn }, (_, c) => `t${t}_${c}`);
    messages.push({ role: "assistant", content: ids.map((id) => ({ type: "tool_use", id, name: "a", input: {} })) });
    messages.push({
      role: "user",
      content: ids.map((id) => ({ type: "tool_result", tool_use_id: id, content: "ok" })),
    });
  }
  return messages;
}

describe("placeBreakpoints", () => {
  it("marks the last tool, the system prompt and the last block of the last message, on a copy", () => {
    const messages = conversation(2);
    const before = JSON.stringify(messages);
    const { request: marked, tail } = placeBreakpoints(request(messages), { ttl: "5m" });
    expect(markers(marked)).toEqual(["tools.1", "system.0", "messages.4.0"]);
    expect(marked.system).toEqual([{ type: "text", text: "Be brief.", cache_control: MARK }]);
    expect(tail).toBe(blockCount(messages) - 1);
    expect(JSON.stringify(messages)).toBe(before); // the history never carries a marker
  });

  it("turns a prompt given as a string into the text block it stands for, marked", () => {
    const { request: marked } = placeBreakpoints(request([{ role: "user", content: "hi" }]), { ttl: "1h" });
    expect(marked.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "hi", cache_control: { type: "ephemeral", ttl: "1h" } }] },
    ]);
  });

  it(`anchors the previous tail when a turn adds ${LOOKBACK_BLOCKS} blocks or more, never more than ${MAX_BREAKPOINTS} markers`, () => {
    const first = placeBreakpoints(request(conversation(1)), { ttl: "5m" });
    const grown = conversation(1).concat(conversation(2, 10).slice(1));
    const { request: marked } = placeBreakpoints(request(grown), { ttl: "5m", previousTail: first.tail });
    expect(markers(marked)).toEqual(["tools.1", "system.0", "messages.2.0", "messages.6.9"]);
    expect(markers(marked).length).toBeLessThanOrEqual(MAX_BREAKPOINTS);
  });

  it("places the anchor only past the lookback, and not after a compaction shortened the history", () => {
    expect(anchorAt(undefined, 50)).toBeUndefined();
    expect(anchorAt(10, 10 + LOOKBACK_BLOCKS - 1)).toBeUndefined();
    expect(anchorAt(10, 10 + LOOKBACK_BLOCKS)).toBe(10);
    expect(anchorAt(40, 3)).toBeUndefined();
  });

  it("gives a side call (tool_choice none, s08's summary) the stable marks only", () => {
    const summary = request(conversation(2), { tool_choice: { type: "none" } });
    const marked = placeBreakpoints(summary, { ttl: "5m" });
    expect(markers(marked.request)).toEqual(["tools.1", "system.0"]);
    expect(marked.tail).toBeUndefined();
  });

  it("puts one marker on the request itself in the request style, and none on a block", () => {
    const { request: marked } = placeBreakpoints(request(conversation(2)), { ttl: "5m", style: "request" });
    expect(markers(marked)).toEqual(["request"]);
    expect(marked.system).toBe("Be brief.");
  });

  it("never marks a thinking block: the API refuses a marker there", () => {
    const thinking: MessageParam = {
      role: "user",
      content: [{ type: "thinking", thinking: "t", signature: "s" }],
    } as never;
    expect(markers(placeBreakpoints(request([thinking]), { ttl: "5m" }).request)).toEqual(["tools.1", "system.0"]);
  });
});

describe("cached", () => {
  it("sends each request marked, and anchors the next one from where the last tail stood", async () => {
    const sent: MessageCreateParamsNonStreaming[] = [];
    const send = cached(
      async (r) => {
        sent.push(r);
        return null;
      },
      { ttl: "5m" },
    );
    const signal = new AbortController().signal;
    await send(request(conversation(1)), signal);
    await send(request(conversation(1), { tool_choice: { type: "none" } }), signal); // a side call between
    await send(request(conversation(1).concat(conversation(2, 10).slice(1))), signal);
    expect(sent.map(markers)).toEqual([
      ["tools.1", "system.0", "messages.2.0"],
      ["tools.1", "system.0"],
      ["tools.1", "system.0", "messages.2.0", "messages.6.9"],
    ]);
  });
});
