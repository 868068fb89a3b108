/**
 * A tool's input checked against the JSON Schema the model reads. One schema is both what the
 * model is told and what the handler accepts, and the first request needs no library to make it.
 *
 * The check is zod's: `z.fromJSONSchema` turns the schema into a zod schema the first time a tool's
 * input is checked (zod is loaded then, not as the harness starts), so each problem is worded as
 * zod words it, whichever way a tool is written. The types below give the handler its input's type
 * from the same object; they read the keywords the chapter's tools use (flat properties of type
 * string, integer, number or boolean, an `enum`).
 */
import { createRequire } from "node:module";
import type { ZodError, ZodType } from "zod";
import type { Parsed } from "../tool.ts";

/** A tool's input schema: an object of flat properties. */
export interface ObjectSchema {
  type: "object";
  properties: Readonly<Record<string, PropertySchema>>;
  required?: readonly string[];
  additionalProperties?: boolean;
}

/** One property of an input schema. */
export interface PropertySchema {
  type: "string" | "integer" | "number" | "boolean";
  description?: string;
  minLength?: number;
  minimum?: number;
  maximum?: number;
  enum?: readonly string[];
}

/** The value a schema describes: what a handler receives once `checkInput` accepts it. */
export type FromSchema<S extends ObjectSchema> = { [K in RequiredKeys<S>]: PropertyValue<S["properties"][K]> } & {
  [K in Exclude<keyof S["properties"], RequiredKeys<S>>]?: PropertyValue<S["properties"][K]>;
};

/** The properties a schema requires. */
export type RequiredKeys<S extends ObjectSchema> = S["required"] extends readonly (infer R)[]
  ? R & keyof S["properties"]
  : never;

/** The value one property describes: a string (or one of its `enum`), a number, or a boolean. */
export type PropertyValue<P extends PropertySchema> = P["type"] extends "string"
  ? P["enum"] extends readonly (infer E)[]
    ? E
    : string
  : P["type"] extends "boolean"
    ? boolean
    : number;

/** zod's `z`: what a shape is built with. */
export type Zod = typeof import("zod").z;

/**
 * zod's `z`, loaded on the first call (later calls get the module Node already holds): a run that
 * checks nothing never loads its ~95 modules. `require`, because a check is synchronous.
 */
export function loadZod(): Zod {
  return createRequire(import.meta.url)("zod").z;
}

/** The zod schema each JSON Schema became, made once per schema. */
const checkers = new WeakMap<ObjectSchema, ZodType>();

/**
 * Check `input` against `schema`: the input with only the schema's properties (a property the
 * model was told not to send is dropped, as zod's objects do, rather than failing the call), or
 * every problem, as `zodProblems` words them.
 * Contract: never throws.
 */
export function checkInput<S extends ObjectSchema>(schema: S, input: unknown): Parsed<FromSchema<S>> {
  let checker = checkers.get(schema);
  if (!checker) {
    const { additionalProperties: _, ...open } = schema;
    const json = open as unknown as Parameters<Zod["fromJSONSchema"]>[0];
    checker = (loadZod().fromJSONSchema(json) as ReturnType<Zod["object"]>).strip();
    checkers.set(schema, checker);
  }
  const parsed = checker.safeParse(input);
  if (parsed.success) return { ok: true, value: parsed.data as FromSchema<S> };
  return { ok: false, error: zodProblems(parsed.error) };
}

/** zod's problems as one line: each as `field: message` (`input` for the whole), joined by `; `. */
export function zodProblems(error: ZodError): string {
  return error.issues.map((i) => `${i.path.length ? i.path.join(".") : "input"}: ${i.message}`).join("; ");
}
