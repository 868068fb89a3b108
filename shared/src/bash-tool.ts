/**
 * The bash tool as the model sees it: a name, a description and a JSON Schema for its input.
 * Chapter 1 sends this definition and calls `runBash` with the command it gets back.
 */
import type { Tool } from "@anthropic-ai/sdk/resources/messages";
import { type RunBashOptions, runBash } from "./run-bash.ts";
import { type ToolResult, toolError } from "./tool-result.ts";

/** The bash tool's definition, sent with every request. */
export const bashToolDefinition: Tool = {
  name: "bash",
  description:
    "Run a shell command with bash in the working directory and return its output (stdout and stderr " +
    "interleaved) and exit code. Each call starts a fresh shell: cd and export do not carry over. " +
    "stdin is closed. Long output keeps its head and tail.",
  input_schema: {
    type: "object",
    properties: { command: { type: "string", description: "The command to run, e.g. `ls -la`." } },
    required: ["command"],
  },
};

/**
 * Run the bash tool with the input the model sent.
 * Contract: an input without a string `command` is an error result, never a throw.
 */
export function runBashTool(input: Record<string, unknown>, options: RunBashOptions): Promise<ToolResult> {
  if (typeof input.command !== "string") {
    return Promise.resolve(toolError('Error: invalid arguments: "command" must be a string.'));
  }
  return runBash(input.command, options);
}
