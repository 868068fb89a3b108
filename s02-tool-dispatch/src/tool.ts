/**
 * A tool is one object: what the model reads (name, description, the input's JSON Schema), how
 * its input is checked (`parse`), whether it may run beside other tools, and the handler.
 *
 * The chapter's tools are written as the JSON Schema the model reads: `defineTool` derives the
 * parse from it (`checkInput`, a JSON Schema validator's check of that schema), so the two cannot
 * drift. A tool written with zod derives both from its zod schema instead; one that brings its
 * own `parse` (one an MCP server offers, in a later chapter) fits the same map.
 */
import type { Tool as ApiTool } from "@anthropic-ai/sdk/resources/messages";
import type { ToolResult } from "@harness/shared";
import type { z } from "zod";
import { checkInput, type FromSchema, type ObjectSchema, zodProblems } from "./tools/check-input.ts";

/** What every handler gets besides its input. */
export interface ToolContext {
  /** The working directory; file tools refuse paths outside it. */
  cwd: string;
  /** Aborted when the user interrupts (s03 on): a handler stops its work (a process, a long read). */
  signal?: AbortSignal;
  /** Milliseconds before a bash command is killed. */
  bashTimeoutMs?: number;
  /**
   * May a search read this path (absolute; a file or a directory)? glob and grep pass by what it
   * refuses, as they pass by `.gitignore`d files; without it they may read everything. A later
   * chapter's permission rules come in here.
   */
  canRead?(path: string): boolean;
}

/** A parsed input, or what is wrong with it (one line the model can act on). */
export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

/** A tool: the schema the model reads, the check of its input, a safety flag and the handler. */
export interface Tool<Input = unknown> {
  name: string;
  description: string;
  /** The input's JSON Schema, sent to the model as the tool's `input_schema`. */
  inputSchema: ApiTool["input_schema"];
  /** Check the model's input before `run`: the value the handler gets, or what is wrong with it. */
  parse(input: unknown): Parsed<Input>;
  /** True when the tool only reads, so it may run at the same time as other such tools. */
  concurrencySafe: boolean;
  /** The handler. It receives only input that `parse` accepted. */
  run(input: Input, context: ToolContext): Promise<ToolResult>;
}

/** A tool written as JSON Schema: one schema, sent to the model, from which `defineTool` derives `parse`. */
export interface ToolSpec<S extends ObjectSchema> {
  name: string;
  description: string;
  /** The input's JSON Schema: sent to the model as it is, and checked before `run`. */
  inputSchema: S;
  /** True when the tool only reads, so it may run at the same time as other such tools. */
  concurrencySafe: boolean;
  /** The handler. It receives only input that passed `inputSchema`. */
  run(input: FromSchema<S>, context: ToolContext): Promise<ToolResult>;
}

/** A tool written with zod: one schema, from which `defineTool` derives `inputSchema` and `parse`. */
export interface ZodToolSpec<S extends z.ZodObject> {
  name: string;
  description: string;
  /** The input schema: sent to the model as JSON Schema, and checked before `run`. */
  schema: S;
  /** True when the tool only reads, so it may run at the same time as other such tools. */
  concurrencySafe: boolean;
  /** The handler. It receives only input that passed `schema`. */
  run(input: z.infer<S>, context: ToolContext): Promise<ToolResult>;
}

/** Define a tool from its JSON Schema, or from a zod schema; the handler's input type comes from it. */
export function defineTool<const S extends ObjectSchema>(spec: ToolSpec<S>): Tool<FromSchema<S>>;
export function defineTool<S extends z.ZodObject>(spec: ZodToolSpec<S>): Tool<z.infer<S>>;
export function defineTool(spec: ToolSpec<ObjectSchema> | ZodToolSpec<z.ZodObject>): Tool<never> {
  const { name, description, concurrencySafe, run } = spec;
  if (!("schema" in spec)) {
    const inputSchema = spec.inputSchema as ApiTool["input_schema"];
    const parse = (input: unknown) => checkInput(spec.inputSchema, input) as Parsed<never>;
    return { name, description, inputSchema, parse, concurrencySafe, run };
  }
  // the zod schema's methods, so this file never loads zod itself: a run whose tools are JSON Schema needs none
  const { $schema: _, ...inputSchema } = spec.schema.toJSONSchema() as Record<string, unknown>;
  return {
    name,
    description,
    inputSchema: inputSchema as ApiTool["input_schema"],
    parse(input) {
      const parsed = spec.schema.safeParse(input);
      return parsed.success
        ? { ok: true, value: parsed.data as never }
        : { ok: false, error: zodProblems(parsed.error) };
    },
    concurrencySafe,
    run,
  };
}

/** The tool as the API wants it: name, description and input schema. */
export function toApiTool(tool: Tool): ApiTool {
  return { name: tool.name, description: tool.description, input_schema: tool.inputSchema };
}
