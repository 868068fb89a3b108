/** bash from shared, as a tool object. It may write anything, so it never runs beside others. */
import { bashToolDefinition, runBash } from "@harness/shared";
import { defineTool } from "../tool.ts";

/** Run a shell command in the working directory (s01's bash, with a schema). */
export const bashTool = defineTool({
  name: "bash",
  description: bashToolDefinition.description ?? "Run a shell command.",
  inputSchema: {
    type: "object",
    properties: { command: { type: "string", description: "The command to run, e.g. `ls -la`." } },
    required: ["command"],
    additionalProperties: false,
  },
  concurrencySafe: false,
  run: ({ command }, { cwd, signal, bashTimeoutMs }) => runBash(command, { cwd, signal, timeoutMs: bashTimeoutMs }),
});
