/**
 * The dispatch map: a tool call is routed by name, its input checked by the tool's `parse`, and
 * its handler run. Every way this can fail is a result with a code the model can act on.
 * Adding a tool means adding one entry to the map; the loop does not change.
 */
import type { ToolCall, ToolResult } from "@harness/shared";
import type { Tool, ToolContext } from "./tool.ts";

/** Tools by name. */
export type ToolMap = ReadonlyMap<string, Tool>;

/** Why a call failed: the first four come from dispatch, `not_run` from the loop, the rest from handlers. */
export type ToolErrorCode =
  | "unknown_tool" // no tool by that name
  | "invalid_arguments" // the input failed the schema (which field, what was wrong)
  | "handler_failed" // the tool threw (its handler, or its parse)
  | "interrupted" // the signal fired before the call started (Ctrl-C, s03 on)
  | "not_run" // the turn was cut short (max_tokens) or refused, so none of its calls ran
  | "outside_workdir" // a path that leaves the working directory
  | "harness_file" // a path inside .harness/: the harness's own files
  | "not_found" // no such file
  | "not_a_file" // a directory, pipe, socket or device where a regular file was expected
  | "permission_denied" // the file exists but may not be opened
  | "binary_file" // a NUL byte: the file tools handle text only
  | "not_utf8" // not valid UTF-8: the file tools handle UTF-8 text only
  | "no_match" // edit_file's old_string is not in the file
  | "several_matches"; // edit_file's old_string is in the file more than once

/** Build the dispatch map from a list of tools. */
export function toolMap(tools: readonly Tool[]): ToolMap {
  return new Map(tools.map((tool) => [tool.name, tool]));
}

/** An error result whose first words are its code: `Error [invalid_arguments]: ...`. */
export function codedError(code: ToolErrorCode, message: string): ToolResult {
  return { content: `Error [${code}]: ${message}`, isError: true };
}

/**
 * Route one call to its tool.
 * Contract: never throws; the handler is never called with input that `parse` refused.
 */
export async function dispatch(tools: ToolMap, call: ToolCall, context: ToolContext): Promise<ToolResult> {
  const tool = tools.get(call.name);
  if (!tool) {
    return codedError("unknown_tool", `there is no tool "${call.name}". Tools: ${[...tools.keys()].join(", ")}.`);
  }
  if (call.inputError) return codedError("invalid_arguments", call.inputError);
  try {
    const parsed = tool.parse(call.input);
    if (!parsed.ok) return codedError("invalid_arguments", `${call.name}: ${parsed.error}`);
    if (context.signal?.aborted) return codedError("interrupted", "the user interrupted before this call ran.");
    return await tool.run(parsed.value, context);
  } catch (error) {
    return codedError("handler_failed", `${call.name}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
