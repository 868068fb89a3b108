/**
 * One provider response, normalised once.
 *
 * Everything after `AgentTurn.fromResponse` reads the turn, never the raw response: the text,
 * the tool calls with their parsed input, the provider's stop reason and the usage. The content
 * blocks go back into the history as the provider sent them (thinking blocks and their
 * signatures included), because the API wants to see its own turn again.
 *
 * Left out: citations and server-tool results are carried in the history but not interpreted.
 */
import type { ContentBlockParam, Message } from "@anthropic-ai/sdk/resources/messages";
import { MAX_INPUT_DEPTH, nestedDeeperThan } from "./nested-deeper-than.ts";

/** A tool call the harness may run: a `tool_use` block with an id and a name. */
export interface ToolCall {
  /** The `tool_use` id; its `tool_result` must carry the same id. */
  id: string;
  /** The tool's name, as the model wrote it (it may name no tool the harness has). */
  name: string;
  /** The parsed input: a JSON object when `inputError` is absent. */
  input: Record<string, unknown>;
  /** Set when the provider's input was not a JSON object (for example, JSON that did not parse). */
  inputError?: string;
}

/** Token counts of one model call. */
export interface TokenUsage {
  /** Input tokens the provider billed for this call (at full price: neither read from nor written to a cache). */
  inputTokens: number;
  /** Output tokens the provider billed for this call. */
  outputTokens: number;
  /** Input tokens read from the provider's prompt cache; present when it reports any (s10). */
  cacheReadInputTokens?: number;
  /** Input tokens written to the provider's prompt cache; present when it reports any (s10). */
  cacheCreationInputTokens?: number;
}

/** One model call, read once. */
export class AgentTurn {
  private constructor(
    /** All text blocks joined: what the model said this turn. */
    readonly text: string,
    /** The `tool_use` blocks that carry an id and a name, in the order the model wrote them. */
    readonly toolCalls: readonly ToolCall[],
    /** The provider's raw stop reason, kept as sent (it may be one this code has never seen). */
    readonly providerStopReason: string | null,
    /** The turn's token usage (zeros when the provider sent none). */
    readonly usage: TokenUsage,
    /** The content blocks to append to the history as the assistant message. */
    readonly historyContent: readonly ContentBlockParam[],
  ) {}

  /**
   * Normalise one provider response. Never throws, whatever the response holds.
   *
   * Contract: a `tool_use` block without a string id is dropped from both the tool calls and the
   * history (no result could answer it). Every other one is a call the loop answers, never dropped
   * nor merged: one without a name is named `MISSING_TOOL_NAME` (no tool has it: an error result
   * says so); blocks that share an id each get an `inputError` (which one the id meant is unknown,
   * so none runs) and, after the first, an id of their own, so each result answers one call; one
   * whose input is not a JSON object, or nests deeper than `MAX_INPUT_DEPTH`, gets an `inputError`.
   * A call with an `inputError` has `{}` as input in the history, and the loop answers it with an
   * error instead of running it.
   * Contract: a text block that is empty or whitespace only is dropped, because the API rejects
   * it. `historyContent` is never empty; a response with no content is recorded as one text
   * block saying so, because the API rejects an empty assistant message.
   */
  static fromResponse(message: Message): AgentTurn {
    const blocks: unknown[] = Array.isArray(message?.content) ? message.content : [];
    const texts: string[] = [];
    const toolCalls: ToolCall[] = [];
    const history: ContentBlockParam[] = [];
    const ids = blocks.flatMap((b) => (isRecord(b) && b.type === "tool_use" && isNonEmptyString(b.id) ? [b.id] : []));
    const shared = new Set(ids.filter((id, i) => ids.indexOf(id) !== i)); // ids more than one call carries
    const given = new Set<string>(); // the ids given out so far, each once
    for (const block of blocks) {
      if (!isRecord(block) || typeof block.type !== "string") continue;
      if (block.type === "text") {
        // the API rejects a text block of whitespace alone ("text content blocks must contain
        // non-whitespace text"), and a model does send one, "\n\n" before a tool call
        if (typeof block.text !== "string" || block.text.trim() === "") continue;
        texts.push(block.text);
        history.push(block as unknown as ContentBlockParam);
      } else if (block.type === "tool_use") {
        if (!isNonEmptyString(block.id)) continue;
        const name = isNonEmptyString(block.name) ? block.name : MISSING_TOOL_NAME;
        const id = given.has(block.id) ? unusedId(block.id, new Set([...ids, ...given])) : block.id;
        given.add(id);
        const call = shared.has(block.id)
          ? { id, name, input: {}, inputError: `another call in this turn has its id (${block.id}): none of them ran` }
          : toolCallFrom(id, name, block.input);
        toolCalls.push(call);
        history.push({ ...block, id, name, input: call.inputError ? {} : call.input } as ContentBlockParam);
      } else {
        // thinking, redacted_thinking, server tool blocks, and types this code does not know:
        // the provider sent them, so the provider gets them back unchanged.
        history.push(block as unknown as ContentBlockParam);
      }
    }
    const stop = typeof message?.stop_reason === "string" ? message.stop_reason : null;
    if (history.length === 0) {
      history.push({ type: "text", text: `(no content; the model stopped with "${stop ?? "null"}")` });
    }
    return new AgentTurn(texts.join("\n"), toolCalls, stop, usageFrom(message?.usage), history);
  }
}

/** The name a call without one is given: no tool has it, so the call is answered with an error. */
export const MISSING_TOOL_NAME = "missing_tool_name";

/** `id` with the first suffix (`_2`, `_3`, ...) that is not `taken`. */
function unusedId(id: string, taken: ReadonlySet<string>): string {
  for (let n = 2; ; n++) if (!taken.has(`${id}_${n}`)) return `${id}_${n}`;
}

function toolCallFrom(id: string, name: string, input: unknown): ToolCall {
  // checked first: nothing below may walk it (JSON.stringify would overflow the stack)
  if (nestedDeeperThan(input, MAX_INPUT_DEPTH)) return tooDeep(id, name);
  if (isRecord(input)) return { id, name, input };
  if (typeof input === "string") {
    // a streamed input that did not parse (or nested too deep) arrives here as its raw text
    try {
      const parsed: unknown = JSON.parse(input === "" ? "{}" : input);
      if (nestedDeeperThan(parsed, MAX_INPUT_DEPTH)) return tooDeep(id, name);
      if (isRecord(parsed)) return { id, name, input: parsed };
    } catch {}
    return { id, name, input: {}, inputError: `the input is not a JSON object: ${clip(input, 200)}` };
  }
  if (input === undefined || input === null) return { id, name, input: {} };
  return { id, name, input: {}, inputError: `the input is not a JSON object: ${clip(JSON.stringify(input), 200)}` };
}

function tooDeep(id: string, name: string): ToolCall {
  return { id, name, input: {}, inputError: `the input nests deeper than ${MAX_INPUT_DEPTH} levels` };
}

function usageFrom(usage: unknown): TokenUsage {
  const u = isRecord(usage) ? usage : {};
  const read = count(u.cache_read_input_tokens);
  const written = count(u.cache_creation_input_tokens);
  return {
    inputTokens: count(u.input_tokens),
    outputTokens: count(u.output_tokens),
    // a prompt cache's counts, when there are any: a run that uses no cache reads as before
    ...(read > 0 ? { cacheReadInputTokens: read } : {}),
    ...(written > 0 ? { cacheCreationInputTokens: written } : {}),
  };
}

function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === "string" && value !== "";
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
