/**
 * The concurrency rule: when every call of a turn only reads, they run at once (at most
 * `MAX_CONCURRENT_TOOLS` at a time); when any call may write, they all run one by one, in the
 * order the model wrote them, so a read never races a write it was meant to follow. Either way
 * the results come back in tool_use order, whatever order they finished in.
 *
 * Each call is run by a `CallRunner`, `dispatch` unless the caller passes another: a later
 * chapter wraps it (a permission check, hooks) without copying this file.
 */
import type { AgentTurn, Emit, LoopEvent, ToolCall, ToolResult } from "@harness/shared";
import { codedError, dispatch, type ToolMap } from "./dispatch.ts";
import type { ToolContext } from "./tool.ts";

/** The most calls run at the same time. */
export const MAX_CONCURRENT_TOOLS = 8;

/** Runs one call to its result; `dispatch` is the default. Contract: never throws. */
export type CallRunner = (tools: ToolMap, call: ToolCall, context: ToolContext) => Promise<ToolResult>;

/** The events a batch of calls reports: each call as it starts, and its result as it lands. */
export type ToolEvent = Extract<LoopEvent, { type: "tool_call" | "tool_result" }>;

/** True when every call names a tool that only reads. */
export function allConcurrencySafe(tools: ToolMap, calls: readonly ToolCall[]): boolean {
  return calls.every((call) => tools.get(call.name)?.concurrencySafe === true);
}

/**
 * Run a turn's calls, each through `runCall`, and return their results in tool_use order.
 * Contract: never throws when `runCall` does not; a call that has not started when the signal
 * fires is answered with an `interrupted` error, so every call gets exactly one result.
 */
export async function runToolCalls(
  tools: ToolMap,
  calls: readonly ToolCall[],
  context: ToolContext,
  emit: Emit<ToolEvent> = () => {},
  runCall: CallRunner = dispatch,
): Promise<ToolResult[]> {
  const results: ToolResult[] = new Array(calls.length);
  const runOne = async (i: number) => {
    const call = calls[i];
    emit({ type: "tool_call", call });
    results[i] = context.signal?.aborted
      ? codedError("interrupted", "the user interrupted before this call ran.")
      : await runCall(tools, call, context);
    emit({ type: "tool_result", call, result: results[i] });
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

/** The result of a tool call from a turn that was cut short or refused: it was not run. */
export function notRun(turn: AgentTurn): ToolResult {
  return codedError("not_run", `the turn stopped with "${turn.providerStopReason}", so no tool from it runs.`);
}
