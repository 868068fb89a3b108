/**
 * The concurrency rule: when every call of a turn only reads, they run at once (at most
 * `MAX_CONCURRENT_TOOLS` at a time); when any call may write, they all run one by one, in the
 * order the model wrote them, so a read never races a write it was meant to follow. Either way
 * the results come back in tool_use order, whatever order they finished in.
 */
import type { ToolCall, ToolResult } from "@harness/shared";
import { codedError, dispatch, type ToolMap } from "./dispatch.ts";
import type { ToolContext } from "./tool.ts";

/** The most calls run at the same time. */
export const MAX_CONCURRENT_TOOLS = 8;

/** True when every call names a tool that only reads. */
export function allConcurrencySafe(tools: ToolMap, calls: readonly ToolCall[]): boolean {
  return calls.every((call) => tools.get(call.name)?.concurrencySafe === true);
}

/**
 * Run a turn's calls and return their results in tool_use order. `onStart` and `onResult` hear
 * each call start and finish (in the order that happens).
 * Contract: never throws; a call that has not started when the signal fires is answered with an
 * `interrupted` error, so every call gets exactly one result.
 */
export async function runToolCalls(
  tools: ToolMap,
  calls: readonly ToolCall[],
  context: ToolContext,
  onResult?: (call: ToolCall, result: ToolResult) => void,
  onStart?: (call: ToolCall) => void,
): Promise<ToolResult[]> {
  const results: ToolResult[] = new Array(calls.length);
  const runOne = async (i: number) => {
    const call = calls[i];
    onStart?.(call);
    results[i] = context.signal.aborted
      ? codedError("interrupted", "the user interrupted before this call ran.")
      : await dispatch(tools, call, context);
    onResult?.(call, results[i]);
  };
  if (!allConcurrencySafe(tools, calls)) {
    for (let i = 0; i < calls.length; i++) await runOne(i);
    return results;
  }
  // a bounded pool: each worker takes the next index until none are left
  let next = 0;
  const worker = async () => {
    while (next < calls.length) await runOne(next++);
  };
  await Promise.all(Array.from({ length: Math.min(MAX_CONCURRENT_TOOLS, calls.length) }, worker));
  return results;
}
