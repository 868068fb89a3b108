/**
 * A tool is one object: what the model reads (name, description, input schema), whether it may
 * run beside other tools, and the handler. One zod schema is the single source of truth: it is
 * turned into the JSON Schema the model sees, and it validates the input before the handler runs.
 */
import type { Tool as ApiTool } from "@anthropic-ai/sdk/resources/messages";
import type { ToolResult } from "@harness/shared";
import { z } from "zod";

/** What every handler gets besides its input. */
export interface ToolContext {
  /** The working directory; file tools refuse paths outside it. */
  cwd: string;
  /** Aborted on Ctrl-C: a handler stops its work (a process, a long read) when it fires. */
  signal: AbortSignal;
  /** Milliseconds before a bash command is killed. */
  bashTimeoutMs?: number;
}

/** A tool: schema, safety flag and handler in one object. */
export interface Tool<S extends z.ZodObject = z.ZodObject> {
  name: string;
  description: string;
  /** The input schema: sent to the model as JSON Schema, and checked before `run`. */
  schema: S;
  /** True when the tool only reads, so it may run at the same time as other such tools. */
  concurrencySafe: boolean;
  /** The handler. It receives only input that passed `schema`. */
  run(input: z.infer<S>, context: ToolContext): Promise<ToolResult>;
}

/** Define a tool; the handler's input type comes from its schema. */
export function defineTool<S extends z.ZodObject>(tool: Tool<S>): Tool<S> {
  return tool;
}

/** The tool as the API wants it: name, description, and the schema as JSON Schema. */
export function toApiTool(tool: Tool): ApiTool {
  const { $schema: _, ...inputSchema } = z.toJSONSchema(tool.schema) as Record<string, unknown>;
  return { name: tool.name, description: tool.description, input_schema: inputSchema as ApiTool["input_schema"] };
}
