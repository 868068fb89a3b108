/**
 * Where the cache breakpoints go. The API caches a prefix of the request (tools, then system, then
 * messages) up to a block marked with `cache_control`, and a later request whose bytes are the
 * same up to there reads it back at a tenth of the price. So the marks go where the request stops
 * being the same as the next one's:
 *
 * - the last tool, and the system prompt: the stable prefix, read by every request of a session
 *   (and by a summary request, which shares the tools);
 * - the last block of the last message: the tail, which moves each turn, so each request reads
 *   the whole prefix the previous one wrote and writes only what is new;
 * - the block the previous tail stood on, when this request adds `LOOKBACK_BLOCKS` blocks or more
 *   since then: the server looks for an earlier entry at most that far back from a breakpoint.
 *
 * At most `MAX_BREAKPOINTS`. The markers go on a copy: the history the loop keeps never carries one
 * (written into it, each turn's marker would stay, and a request would soon carry more than four).
 *
 * The alternative is one field, the request's own `cache_control`, which the API puts on the last
 * cacheable block for you: the tail only, with no say in the stable prefix or the anchor.
 */
import type {
  CacheControlEphemeral,
  ContentBlockParam,
  MessageCreateParamsNonStreaming,
  MessageParam,
  TextBlockParam,
} from "@anthropic-ai/sdk/resources/messages";

/** How long the cache keeps a prefix after its last use: `1h` costs twice the input price to write, `5m` 1.25 times. */
export type CacheTtl = "5m" | "1h";

/** Markers on the blocks this file chooses (the default), or the request's own `cache_control`. */
export type MarkerStyle = "blocks" | "request";

/** Breakpoints the API accepts in one request; a fifth is a 400. */
export const MAX_BREAKPOINTS = 4;

/** Blocks the server looks back from a breakpoint for an earlier entry (the breakpoint's own included). */
export const LOOKBACK_BLOCKS = 20;

/** How to mark one request. */
export interface BreakpointOptions {
  ttl: CacheTtl;
  /** Default `blocks`. */
  style?: MarkerStyle;
  /** The message block the previous request's tail marker stood on (counted over all messages' blocks). */
  previousTail?: number;
}

/** A request with its markers, and where its tail marker stands. */
export interface Marked {
  request: MessageCreateParamsNonStreaming;
  /** The message block the tail marker is on (the next request's `previousTail`); none for a side call. */
  tail?: number;
}

/**
 * Mark `request` for the cache. A request that may call no tool (`tool_choice: none`, s08's
 * summary) is a side call: no conversation goes on from it, so its tail would never be read, and
 * it gets the stable marks only.
 * Contract: `request` and its history are not changed; the copy carries at most `MAX_BREAKPOINTS`.
 */
export function placeBreakpoints(request: MessageCreateParamsNonStreaming, options: BreakpointOptions): Marked {
  const mark: CacheControlEphemeral = options.ttl === "1h" ? { type: "ephemeral", ttl: "1h" } : { type: "ephemeral" };
  const side = request.tool_choice?.type === "none";
  if (options.style === "request") return { request: side ? request : { ...request, cache_control: mark } };
  const tools = request.tools?.map((tool, i, all) => (i === all.length - 1 ? { ...tool, cache_control: mark } : tool));
  const marked = { ...request, ...(tools ? { tools } : {}), system: system(request, mark) };
  const count = blockCount(request.messages);
  if (side || count === 0) return { request: marked };
  const tail = count - 1;
  const anchor = anchorAt(options.previousTail, tail);
  const at = anchor === undefined ? [tail] : [anchor, tail];
  return { request: { ...marked, messages: markBlocks(request.messages, at, mark) }, tail };
}

/**
 * Where the second trailing anchor goes: on the block the previous tail stood on, when this
 * request's tail is `LOOKBACK_BLOCKS` or more blocks past it (the server would not find the
 * previous entry from the new tail); otherwise none.
 */
export function anchorAt(previousTail: number | undefined, tail: number): number | undefined {
  if (previousTail === undefined || previousTail >= tail) return undefined;
  return tail - previousTail >= LOOKBACK_BLOCKS ? previousTail : undefined;
}

/** The system prompt as blocks, its last one marked (none: none). */
function system(request: MessageCreateParamsNonStreaming, mark: CacheControlEphemeral): TextBlockParam[] | undefined {
  const { system } = request;
  if (system === undefined || system === "" || system.length === 0) return undefined;
  const blocks: TextBlockParam[] = typeof system === "string" ? [{ type: "text", text: system }] : system;
  return blocks.map((block, i) => (i === blocks.length - 1 ? { ...block, cache_control: mark } : block));
}

/** The blocks of every message, a string counting as one. */
export function blockCount(messages: readonly MessageParam[]): number {
  return messages.reduce((n, m) => n + (typeof m.content === "string" ? 1 : m.content.length), 0);
}

/** A copy of `messages` with the blocks at these positions marked (a thinking block cannot be: it is left). */
function markBlocks(messages: readonly MessageParam[], at: readonly number[], mark: CacheControlEphemeral) {
  let first = 0;
  return messages.map((message): MessageParam => {
    const blocks: ContentBlockParam[] =
      typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
    const start = first;
    first += blocks.length;
    if (!at.some((n) => n >= start && n < first)) return message;
    const content = blocks.map((block, i) =>
      at.includes(start + i) && block.type !== "thinking" && block.type !== "redacted_thinking"
        ? ({ ...block, cache_control: mark } as ContentBlockParam)
        : block,
    );
    return { ...message, content } as MessageParam;
  });
}
