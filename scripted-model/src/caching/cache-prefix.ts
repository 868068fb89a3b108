/**
 * A request as the prompt cache sees it: one run of blocks in the order the API reads them
 * (tools, then system, then each message's content), a hash of the prefix that ends at each block,
 * the tokens each prefix holds, and the blocks a `cache_control` marks.
 *
 * What the hash covers is the content only: the `cache_control` markers are taken out first, so
 * the same prefix marked at another block is the same prefix. The model opens every hash: two
 * models never share an entry. A string system prompt or message is the text block it stands for.
 */
import { createHash } from "node:crypto";

/** The API's limit on breakpoints in one request, and its 400 for a request over it. */
export const MAX_BREAKPOINTS = 4;

/** The API's words for a request with more breakpoints than `MAX_BREAKPOINTS`. */
export function tooManyBreakpoints(found: number): string {
  return `A maximum of ${MAX_BREAKPOINTS} blocks with cache_control may be provided. Found ${found}.`;
}

/** A cache breakpoint: where a prefix ends, and how long its entry lives. */
export interface Breakpoint {
  /** The index of the block it marks, in `CachePrefix.hashes`. */
  at: number;
  ttl: "5m" | "1h";
}

/** A request read for the cache. */
export interface CachePrefix {
  /** The hash of the prefix ending at each block (tools, system, then messages), in order. */
  hashes: string[];
  /** The tokens of the prefix ending at each block (about four characters a token). */
  tokens: number[];
  /** The breakpoints, in order: each marked block, and the request's own `cache_control` (last block). */
  breakpoints: Breakpoint[];
}

type Json = Record<string, unknown>;

/**
 * Read `body` (a Messages API request) for the cache; `scope` opens every hash (the model, and for
 * the OpenAI formats their `prompt_cache_key`).
 */
export function cachePrefix(body: Json, scope: string): CachePrefix {
  // each block: what its hash covers, and the characters it adds to the request as sent (its
  // message's framing with its first block, so the last prefix is about the whole request)
  const blocks: { value: unknown; chars: number; marker?: unknown }[] = [];
  const size = (value: unknown) => JSON.stringify(withoutMarker(value)).length + 1;
  for (const tool of asList(body.tools)) blocks.push({ ...entry({ tool }, tool), chars: size(tool) });
  const system = body.system;
  if (typeof system === "string") blocks.push({ value: { system: textBlock(system) }, chars: size(system) });
  else for (const block of asList(system)) blocks.push({ ...entry({ system: block }, block), chars: size(block) });
  asList(body.messages).forEach((message, m) => {
    const { role, content } = message as { role?: unknown; content?: unknown };
    if (typeof content === "string") {
      blocks.push({ value: { m, role, block: textBlock(content) }, chars: size(message) });
      return;
    }
    asList(content).forEach((block, i) => {
      const framing = i === 0 ? size({ role, content: [] }) : 0;
      blocks.push({ ...entry({ m, role, block }, block), chars: framing + size(block) });
    });
  });

  const hashes: string[] = [];
  const tokens: number[] = [];
  let hash = createHash("sha256").update(scope).digest("hex");
  let chars = 0;
  for (const block of blocks) {
    hash = createHash("sha256").update(hash).update(JSON.stringify(block.value)).digest("hex");
    chars += block.chars;
    hashes.push(hash);
    tokens.push(Math.ceil(chars / 4));
  }
  const breakpoints: Breakpoint[] = [];
  blocks.forEach((block, at) => {
    if (isMarker(block.marker)) breakpoints.push({ at, ttl: ttlOf(block.marker) });
  });
  // the request's own marker: the API puts it on the last cacheable block (the last one here)
  if (isMarker(body.cache_control) && blocks.length > 0) {
    breakpoints.push({ at: blocks.length - 1, ttl: ttlOf(body.cache_control) });
  }
  return { hashes, tokens, breakpoints };
}

/** The request without any `cache_control`, on its blocks or on itself: what the model reads and counts. */
export function withoutCacheControl<T>(body: T): T {
  const b = body as Json;
  const strip = (list: unknown) => (Array.isArray(list) ? list.map(withoutMarker) : list);
  const messages = asList(b.messages).map((message) => {
    const content = (message as Json).content;
    return Array.isArray(content) ? { ...(message as Json), content: strip(content) } : message;
  });
  const { cache_control: _, ...rest } = b;
  return {
    ...rest,
    ...(b.tools === undefined ? {} : { tools: strip(b.tools) }),
    ...(b.system === undefined ? {} : { system: strip(b.system) }),
    messages,
  } as T;
}

/** True when `body` carries a marker anywhere: only such a request is answered with cache counts. */
export function hasCacheControl(body: Json): boolean {
  return cachePrefix(body, "").breakpoints.length > 0;
}

function entry(wrapped: Json, block: unknown): { value: unknown; marker?: unknown } {
  const key = Object.keys(wrapped).find((k) => k !== "m" && k !== "role") ?? "block";
  return { value: { ...wrapped, [key]: withoutMarker(block) }, marker: (block as Json | null)?.cache_control };
}

function withoutMarker(block: unknown): unknown {
  if (typeof block !== "object" || block === null || !("cache_control" in block)) return block;
  const { cache_control: _, ...rest } = block as Json;
  return rest;
}

function textBlock(text: string): Json {
  return { type: "text", text };
}

function isMarker(value: unknown): boolean {
  return typeof value === "object" && value !== null && (value as Json).type === "ephemeral";
}

function ttlOf(marker: unknown): "5m" | "1h" {
  return (marker as Json).ttl === "1h" ? "1h" : "5m";
}

function asList(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
