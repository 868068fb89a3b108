/**
 * The Messages API's server-side context management, emulated closely enough for a harness to use
 * it offline: the request's `context_management.edits` (`clear_tool_uses_20250919`,
 * `compact_20260112`), accepted only with their beta headers as the SDK sends them
 * (`anthropic-beta: context-management-2025-06-27,compact-2026-01-12`), and `compaction` blocks in
 * the history honoured as the API honours them: what came before one is not read again.
 *
 * What the emulation decides is its own: token counts are estimates (about four characters a token),
 * a cleared result's marker text and the summary are the scripted model's, and `encrypted_content`
 * is its own opaque note (the request being answered when it compacted), which it needs back
 * unchanged. Left out: `clear_thinking_20251015`, `usage.iterations`, the top-level `compaction`
 * parameter, and the API's lower bounds on triggers.
 */
import type { MessageCreateParams, MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { estimateInputTokens } from "../wire.ts";
import { summariseConversation } from "./summarise-conversation.ts";

/** The beta `clear_tool_uses_20250919` needs. */
export const CONTEXT_MANAGEMENT_BETA = "context-management-2025-06-27";
/** The beta `compact_20260112` needs. */
export const COMPACT_BETA = "compact-2026-01-12";

/** What a cleared tool result reads after `clear_tool_uses_20250919` (the emulation's own words). */
export const SERVER_CLEARED_RESULT = "[cleared by the server's context management]";

/** The defaults the API documents for each edit. */
export const SERVER_EDIT_DEFAULTS = { clearTrigger: 100_000, keepToolUses: 3, compactTrigger: 150_000 } as const;

/** A request after the server's context management, as the model reads it. */
export interface ManagedRequest {
  /** The request the model answers: compacted history replaced by its summary, old results cleared. */
  body: MessageCreateParams;
  /** The response's `context_management` (its `applied_edits`), when the request set `context_management`. */
  response?: { applied_edits: Record<string, unknown>[] };
  /** A `compaction` block to put first in the reply: this request triggered a compaction. */
  compaction?: Record<string, unknown>;
  /** `pause_after_compaction`: reply with the compaction block alone, stop reason `compaction`. */
  pause?: boolean;
}

type Edit = Record<string, unknown> & { type?: unknown };
type Block = Record<string, unknown> & { type?: unknown };

const EDIT_BETAS: Record<string, string> = {
  clear_tool_uses_20250919: CONTEXT_MANAGEMENT_BETA,
  compact_20260112: COMPACT_BETA,
};

/**
 * Apply the request's context management, and any compaction its history carries.
 * Contract: returns the API's error message (a string) for a request it would refuse:
 * `context_management` without the beta its edits need, or an edit it does not know.
 */
export function manageContext(body: MessageCreateParams, headers: Record<string, string>): ManagedRequest | string {
  const config = (body as { context_management?: { edits?: Edit[] } | null }).context_management;
  let messages = resumeAfterCompaction(body.messages);
  if (config === undefined || config === null) return { body: { ...body, messages } };
  const betas = new Set((headers["anthropic-beta"] ?? "").split(",").map((b) => b.trim()));
  const edits = Array.isArray(config.edits) ? config.edits : [];
  for (const [i, edit] of edits.entries()) {
    const beta = EDIT_BETAS[String(edit?.type)];
    if (beta === undefined) {
      return `context_management.edits.${i}: Input tag '${String(edit?.type)}' found using 'type' does not match any of the expected tags: ${Object.keys(EDIT_BETAS).map((t) => `'${t}'`)}`;
    }
    if (!betas.has(beta)) return "context_management: Extra inputs are not permitted";
  }
  const applied: Record<string, unknown>[] = [];
  let compaction: Record<string, unknown> | undefined;
  let pause = false;
  for (const edit of edits) {
    const size = estimateInputTokens({ ...body, messages });
    if (edit.type === "clear_tool_uses_20250919") {
      if (size <= tokens(edit.trigger, SERVER_EDIT_DEFAULTS.clearTrigger)) continue;
      const cleared = clearToolUses(messages, edit);
      if (cleared.count === 0) continue;
      const freed = size - estimateInputTokens({ ...body, messages: cleared.messages });
      if (freed < tokens(edit.clear_at_least, 0)) continue;
      messages = cleared.messages;
      applied.push({ type: edit.type, cleared_tool_uses: cleared.count, cleared_input_tokens: freed });
    } else if (edit.type === "compact_20260112") {
      if (size <= tokens(edit.trigger, SERVER_EDIT_DEFAULTS.compactTrigger)) continue;
      const request = latestPrompt(messages);
      compaction = {
        type: "compaction",
        content: summariseConversation(messages),
        encrypted_content: Buffer.from(JSON.stringify({ request })).toString("base64"),
      };
      messages = [{ role: "user", content: summaryBlocks(compaction.content as string, request) }];
      pause = edit.pause_after_compaction === true;
    }
  }
  return { body: { ...body, messages }, response: { applied_edits: applied }, compaction, pause };
}

/**
 * The history as the model reads it when it carries a `compaction` block: everything before the
 * last block is replaced by the block's summary (and the request it was answering, from its
 * `encrypted_content`). A block whose content is null is a failed compaction: a no-op.
 */
export function resumeAfterCompaction(messages: readonly MessageParam[]): MessageParam[] {
  for (let i = messages.length - 1; i >= 0; i--) {
    const blocks = blocksOf(messages[i]);
    const k = blocks.findLastIndex((b) => b.type === "compaction" && typeof b.content === "string");
    if (k === -1) continue;
    const block = blocks[k];
    const opening: MessageParam = {
      role: "user",
      content: summaryBlocks(block.content as string, requestIn(block.encrypted_content)),
    };
    const rest = blocks.slice(k + 1);
    const after = messages.slice(i + 1);
    if (rest.length > 0) return [opening, { role: "assistant", content: rest as never }, ...after];
    // nothing after the block in its message: the next user message joins the summary's
    const [next, ...others] = after;
    if (next?.role !== "user") return [opening, ...after];
    return [{ role: "user", content: [...(opening.content as never[]), ...(blocksOf(next) as never[])] }, ...others];
  }
  return [...messages];
}

/** The summary as the model reads it, then the request it was answering, word for word. */
function summaryBlocks(summary: string, request: string | undefined): { type: "text"; text: string }[] {
  const blocks = [{ type: "text" as const, text: summary }];
  if (request) blocks.push({ type: "text", text: request });
  return blocks;
}

/** The request an `encrypted_content` of this emulation names; nothing for anyone else's. */
function requestIn(encrypted: unknown): string | undefined {
  if (typeof encrypted !== "string") return undefined;
  try {
    const note = JSON.parse(Buffer.from(encrypted, "base64").toString("utf8")) as { request?: unknown };
    return typeof note.request === "string" && note.request.trim() !== "" ? note.request : undefined;
  } catch {
    return undefined;
  }
}

/** Clear every tool use's result but the `keep` latest (and those of excluded tools). */
function clearToolUses(messages: MessageParam[], edit: Edit): { messages: MessageParam[]; count: number } {
  const keep = tokens(edit.keep, SERVER_EDIT_DEFAULTS.keepToolUses);
  const excluded = new Set(Array.isArray(edit.exclude_tools) ? edit.exclude_tools.map(String) : []);
  const clearInputs = edit.clear_tool_inputs;
  const uses = messages.flatMap((m) =>
    blocksOf(m).filter((b) => b.type === "tool_use" && !excluded.has(String(b.name))),
  );
  const cleared = new Map(uses.slice(0, Math.max(0, uses.length - keep)).map((b) => [String(b.id), b]));
  let count = 0;
  const out = messages.map((message): MessageParam => {
    if (typeof message.content === "string") return message;
    const content = message.content.map((block) => {
      const b = block as unknown as Block;
      if (b.type === "tool_result" && cleared.has(String(b.tool_use_id)) && b.content !== SERVER_CLEARED_RESULT) {
        count++;
        return { ...b, content: SERVER_CLEARED_RESULT };
      }
      const inputs = clearInputs === true || (Array.isArray(clearInputs) && clearInputs.includes(b.name));
      if (b.type === "tool_use" && cleared.has(String(b.id)) && inputs) return { ...b, input: {} };
      return b;
    });
    return { ...message, content } as unknown as MessageParam;
  });
  return { messages: out, count };
}

/** The text of the latest user message that has some. */
function latestPrompt(messages: readonly MessageParam[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i].role !== "user") continue;
    const texts = blocksOf(messages[i]).filter((b) => b.type === "text" && typeof b.text === "string");
    if (texts.length > 0) return String(texts.at(-1)?.text);
  }
  return "";
}

/** A `{type: "input_tokens" | "tool_uses", value}` setting's value, or the default. */
function tokens(setting: unknown, fallback: number): number {
  const value = (setting as { value?: unknown } | null | undefined)?.value;
  return typeof value === "number" && Number.isFinite(value) ? value : fallback;
}

function blocksOf(message: MessageParam): Block[] {
  if (typeof message.content === "string") return [{ type: "text", text: message.content }];
  return Array.isArray(message.content) ? (message.content as unknown as Block[]) : [];
}
