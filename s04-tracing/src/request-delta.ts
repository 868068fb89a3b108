/**
 * A request written as what is new since the one before it, and put back together. An agent's
 * consecutive requests share almost everything: the system prompt, the tools, and a history that
 * only grows, except that its last message may change (a pause_turn continuation is merged into
 * the assistant message it continues; a prompt typed after an interrupted run joins the user
 * message of tool results). Writing every request whole would make a trace grow with the square
 * of its turns; writing the difference keeps it linear, and every request can still be rebuilt
 * exactly as it was sent.
 */
import type { MessageCreateParamsNonStreaming, MessageParam, Tool } from "@anthropic-ai/sdk/resources/messages";
import type { RequestDelta, TracedRequest } from "./trace-record.ts";

/**
 * A request frozen as it was sent: a private copy, because the loop goes on changing the history
 * in place. What did not change since the request it was frozen against is shared with that one.
 */
export interface SentRequest {
  model: string;
  max_tokens: number;
  system: string;
  tools: Tool[];
  messages: MessageParam[];
}

/**
 * Freeze `request` as it is about to be sent, against `base` (the last request written): each part
 * that still equals the base's is the base's copy; anything else is copied now.
 * Contract: two parts are shared exactly when they serialise to the same JSON.
 */
export function freezeRequest(request: MessageCreateParamsNonStreaming, base?: SentRequest): SentRequest {
  const tools = request.tools ?? [];
  const messages: MessageParam[] = [];
  let same = base !== undefined;
  for (const [i, message] of request.messages.entries()) {
    same = same && i < (base?.messages.length ?? 0) && sameJson(message, base?.messages[i]);
    messages.push(same && base ? base.messages[i] : copy(message));
  }
  return {
    model: request.model,
    max_tokens: request.max_tokens,
    system: typeof request.system === "string" ? request.system : JSON.stringify(request.system ?? ""),
    tools: base && sameJson(tools, base.tools) ? base.tools : copy(tools as Tool[]),
    messages,
  };
}

/**
 * Request `n` as what is new since request `base` (all of it without a base): the base's first
 * `keep` messages, unchanged, then `messages`; system and tools only when they changed.
 */
export function requestDelta(sent: SentRequest, n: number, base?: { n: number; sent: SentRequest }): RequestDelta {
  let keep = 0;
  const most = Math.min(sent.messages.length, base?.sent.messages.length ?? 0);
  while (keep < most && sent.messages[keep] === base?.sent.messages[keep]) keep++;
  return {
    n,
    ...(base ? { base: base.n } : {}),
    keep,
    model: sent.model,
    max_tokens: sent.max_tokens,
    ...(sent.system === base?.sent.system ? {} : { system: sent.system }),
    ...(sent.tools === base?.sent.tools ? {} : { tools: sent.tools }),
    messages: sent.messages.slice(keep),
  };
}

/**
 * Put a request back together from its delta and the request it extends.
 * Contract: `base` is the rebuilt request `delta.base` (undefined when there is none), so the
 * result is the request exactly as it was sent.
 */
export function rebuildRequest(delta: RequestDelta, base?: TracedRequest): TracedRequest {
  return {
    model: delta.model,
    max_tokens: delta.max_tokens,
    system: delta.system ?? base?.system ?? "",
    tools: delta.tools ?? base?.tools ?? [],
    messages: [...(base?.messages.slice(0, delta.keep) ?? []), ...delta.messages],
  };
}

/** A copy of a JSON value as the API receives it (what JSON leaves out, such as undefined, is left out). */
function copy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value));
}

/** True when `a` and `b` serialise to the same JSON text (keys in the same order): `b` is a copy made by `copy`. */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  const keys = Object.keys(a);
  const copied = Object.keys(b);
  if (keys.length !== copied.length) return false;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    if (key !== copied[i] || !sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) {
      return false;
    }
  }
  return true;
}
