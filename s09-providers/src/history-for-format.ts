/**
 * What crosses providers, and what does not.
 *
 * Text, tool calls and tool results mean the same to every provider. Reasoning does not: an
 * Anthropic `thinking` block carries a signature only Anthropic verifies, a Responses `reasoning`
 * item carries `encrypted_content` only OpenAI decrypts, and DeepSeek's `reasoning_content` has no
 * field in either of the others. The history keeps each as its provider sent it, tagged with the
 * format it came from, and each adapter sends back only what its own format can read. The rest
 * is dropped on purpose, and said so once.
 */
import type { ContentBlockParam, MessageParam } from "@anthropic-ai/sdk/resources/messages";
import type { WireFormat } from "./provider-adapter.ts";

/**
 * Reasoning from an OpenAI-format provider, kept in the history beside the text and tool calls of
 * its turn. The Messages API has no such block: the anthropic adapter never sends it.
 */
export interface ReasoningBlock {
  type: "reasoning";
  /** The wire format that produced it: the only one it is sent back to. */
  format: "openai-chat" | "openai-responses";
  /** The reasoning as the provider showed it (Chat's `reasoning_content`, a Responses item's summary). */
  text: string;
  /** The Responses API's `reasoning` item as it came (id, summary, `encrypted_content`), sent back unchanged. */
  item?: Record<string, unknown>;
  /**
   * The ids of the `function_call` items that followed that reasoning item, by their `call_id`: the
   * API pairs a reasoning item with the items after it by id, so they go back with them.
   */
  calls?: Record<string, string>;
}

/** True for a `ReasoningBlock`. */
export function isReasoningBlock(block: unknown): block is ReasoningBlock {
  const b = block as Partial<ReasoningBlock> | null;
  return typeof b === "object" && b !== null && b.type === "reasoning" && typeof b.format === "string";
}

/** The blocks every format reads: they cross to any provider. */
export const CROSSING_BLOCKS: ReadonlySet<string> = new Set(["text", "tool_use", "tool_result"]);

/**
 * Blocks only one format reads back, and why (the notice quotes it). A block of any other type
 * came from the Messages API (a server tool's, or one newer than this code): anthropic only.
 */
export const FORMAT_BOUND_BLOCKS: Readonly<Record<string, { format: WireFormat; why: string }>> = {
  thinking: { format: "anthropic", why: "their signatures verify only at Anthropic" },
  redacted_thinking: { format: "anthropic", why: "they are encrypted for Anthropic" },
  "reasoning:openai-chat": { format: "openai-chat", why: "no other format has a field for reasoning_content" },
  "reasoning:openai-responses": { format: "openai-responses", why: "their encrypted_content decrypts only at OpenAI" },
};
const MESSAGES_API_ONLY = { format: "anthropic" as const, why: "only the Messages API reads them" };

/** What an emptied assistant message says instead (the APIs reject an empty message). */
export const NOTHING_LEFT = "(reasoning only, not sent to this provider)";

/**
 * The history as `format` can read it: every block bound to another format left out, and `drop`
 * told what was left out (a count per kind, with why).
 * Contract: never changes `messages`; roles and tool calls stay as they were, so a valid history
 * stays valid (an assistant message left empty gets a short text saying why).
 */
export function historyForFormat(
  messages: readonly MessageParam[],
  format: WireFormat,
  drop: (line: string, kind: string) => void = () => {},
): MessageParam[] {
  const dropped = new Map<string, number>();
  const kept = messages.map((message): MessageParam => {
    if (typeof message.content === "string") return message;
    const content = message.content.filter((block) => {
      const kind = kindOf(block);
      if (CROSSING_BLOCKS.has(kind)) return true;
      const bound = FORMAT_BOUND_BLOCKS[kind] ?? MESSAGES_API_ONLY;
      if (bound.format === format) return true;
      dropped.set(kind, (dropped.get(kind) ?? 0) + 1);
      return false;
    });
    if (content.length === message.content.length) return message;
    return {
      ...message,
      content: content.length > 0 ? content : [{ type: "text", text: NOTHING_LEFT }],
    } as MessageParam;
  });
  for (const [kind, count] of dropped) {
    const { format: from, why } = FORMAT_BOUND_BLOCKS[kind] ?? MESSAGES_API_ONLY;
    const name = kind.replace(/:.*$/, "");
    drop(`Not sent to ${format}: ${count} ${name} block${count === 1 ? "" : "s"} from ${from} (${why}).`, kind);
  }
  return kept;
}

/** A `drop` for `historyForFormat` that passes each kind on to `notice` once (a run drops the same kind every turn). */
export function noticeOnce(notice?: (line: string) => void): (line: string, kind: string) => void {
  const told = new Set<string>();
  return (line, kind) => {
    if (told.has(kind)) return;
    told.add(kind);
    notice?.(line);
  };
}

/** The crossing kind of a block: its type, and for reasoning the format it came from. */
function kindOf(block: ContentBlockParam | ReasoningBlock): string {
  return isReasoningBlock(block) ? `reasoning:${block.format}` : String(block.type);
}
