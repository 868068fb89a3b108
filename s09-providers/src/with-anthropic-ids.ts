/**
 * Tool call ids cross providers with the history, but not every provider's ids are ones the
 * Messages API takes: it wants `^[a-zA-Z0-9_-]+$`, and Kimi's, for one, read `functions.bash:0`.
 * Before the history goes to the Messages API, such an id is rewritten, the same way in its
 * `tool_use` and in its `tool_result`, so every pair stays a pair; the history kept is unchanged.
 */
import type { ContentBlockParam, MessageParam } from "@anthropic-ai/sdk/resources/messages";

const ANTHROPIC_ID = /^[a-zA-Z0-9_-]+$/;

/**
 * `messages` with each tool call id the Messages API would refuse rewritten.
 * Contract: never changes `messages`; a rewritten id is unique in the history, and a tool_use and
 * its tool_result get the same one.
 */
export function withAnthropicIds(messages: readonly MessageParam[]): MessageParam[] {
  const renamed = new Map<string, string>();
  const taken = new Set<string>();
  for (const message of messages) {
    if (typeof message.content === "string") continue;
    for (const block of message.content) if (block.type === "tool_use") taken.add(block.id);
  }
  const idFor = (id: string): string => {
    if (ANTHROPIC_ID.test(id)) return id;
    let next = renamed.get(id);
    if (next === undefined) {
      const base = id.replace(/[^a-zA-Z0-9_-]/g, "_") || "call";
      next = base;
      for (let n = 2; taken.has(next); n++) next = `${base}_${n}`;
      taken.add(next);
      renamed.set(id, next);
    }
    return next;
  };
  return messages.map((message): MessageParam => {
    if (typeof message.content === "string") return message;
    let changed = false;
    const content = message.content.map((block): ContentBlockParam => {
      if (block.type === "tool_use" && !ANTHROPIC_ID.test(block.id)) {
        changed = true;
        return { ...block, id: idFor(block.id) };
      }
      if (block.type === "tool_result" && !ANTHROPIC_ID.test(block.tool_use_id)) {
        changed = true;
        return { ...block, tool_use_id: idFor(block.tool_use_id) };
      }
      return block;
    });
    return changed ? ({ ...message, content } as MessageParam) : message;
  });
}
