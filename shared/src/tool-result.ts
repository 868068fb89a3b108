/**
 * What a tool returns. A tool never throws into the loop: a failure is a result the model can
 * read and act on, sent back as a `tool_result` with `is_error` set.
 */
import type { ToolResultBlockParam } from "@anthropic-ai/sdk/resources/messages";
import type { ToolCall } from "./agent-turn.ts";

/** The outcome of one tool call, as a value. */
export interface ToolResult {
  /** Text for the model: the output, or what went wrong and what to do about it. */
  content: string;
  /** True when the call failed; sent to the API as `is_error`. */
  isError: boolean;
}

/** A successful result. */
export function toolOutput(content: string): ToolResult {
  return { content, isError: false };
}

/** A failed result whose text tells the model what went wrong. */
export function toolError(content: string): ToolResult {
  return { content, isError: true };
}

/** A tool result as the API wants it: answering its call's id. */
export function toResultBlock(call: ToolCall, result: ToolResult): ToolResultBlockParam {
  return { type: "tool_result", tool_use_id: call.id, content: result.content, is_error: result.isError };
}
