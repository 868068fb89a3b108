/**
 * A request written as what is new since the one before it, and put back together. An agent's
 * consecutive requests share almost everything: the system prompt, the tools, and a history that
 * only grows, except that its last message may change (a pause_turn continuation is merged into
 * the assistant message it continues; a prompt typed after an interrupted run joins the user
 * message of tool results). Writing every request whole would make a trace grow with the square
 * of its turns; writing the difference keeps it linear, and every request can still be rebuilt
 * exactly as it was sent.
 */
import type { MessageCreateParamsNonStreaming } from "@anthropic-ai/sdk/resources/messages";
import type { RequestDelta, TracedRequest } from "./trace-record.ts";

/**
 * A request frozen as it was sent: each part serialised, because the loop goes on changing the
 * history in place. Two parts are unchanged exactly when their texts are equal.
 */
export interface SentRequest {
  model: string;
  max_tokens: number;
  system: string;
  /** The tools as JSON. */
  tools: string;
  /** Each message as JSON, in order. */
  messages: string[];
}

/** Freeze `request` as it is about to be sent. */
export function freezeRequest(request: MessageCreateParamsNonStreaming): SentRequest {
  return {
    model: request.model,
    max_tokens: request.max_tokens,
    system: typeof request.system === "string" ? request.system : JSON.stringify(request.system ?? ""),
    tools: JSON.stringify(request.tools ?? []),
    messages: request.messages.map((m) => JSON.stringify(m)),
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
    ...(sent.tools === base?.sent.tools ? {} : { tools: JSON.parse(sent.tools) }),
    messages: sent.messages.slice(keep).map((m) => JSON.parse(m)),
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
