/**
 * s01's one tool, run: bash, or an error result for anything else. The loop calls `runTool` for
 * each call of a turn, and `notRun` for each call of a turn it will not run.
 */
import { type AgentTurn, runBashTool, type ToolCall, type ToolResult, toolError } from "@harness/shared";

/**
 * Run one tool call in `cwd`. The only tool is bash; anything else is an error result.
 * Contract: never throws.
 */
export async function runTool(call: ToolCall, options: { cwd: string; bashTimeoutMs?: number }): Promise<ToolResult> {
  if (call.inputError) return toolError(`Error: invalid arguments: ${call.inputError}`);
  if (call.name !== "bash") return toolError(`Error: unknown tool "${call.name}"; the only tool is bash.`);
  return runBashTool(call.input, { cwd: options.cwd, timeoutMs: options.bashTimeoutMs });
}

/** The result of a tool call from a turn that was cut short or refused: it was not run. */
export function notRun(turn: AgentTurn): ToolResult {
  return toolError(`Error: not run; the turn stopped with "${turn.providerStopReason}", so no tool from it runs.`);
}
