/**
 * A tool's input checked against the JSON Schema the model reads. One schema is both what the
 * model is told and what the handler accepts, and the first request needs no library to make it.
 *
 * The keywords the chapter's tools use, no more: an object's `properties` and `required`; a
 * property's `type` (string, integer, number, boolean), `minLength`, `minimum`, `maximum` and
 * `enum`. Each problem is worded as zod words it, so a tool written with zod and one written as
 * JSON Schema answer the model alike. Left out: every other keyword (nested objects, arrays,
 * patterns); a tool that needs one brings its own `parse`, or a zod schema.
 */
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

/**
 * Check `input` against `schema`: the input with only the schema's properties (others are
 * dropped), or every problem, one per property, in the schema's order.
 * Contract: never throws.
 */
export function checkInput<S extends ObjectSchema>(schema: S, input: unknown): Parsed<FromSchema<S>> {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    return { ok: false, error: `input: Invalid input: expected object, received ${kindOf(input)}` };
  }
  const value: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [name, property] of Object.entries(schema.properties)) {
    const given = (input as Record<string, unknown>)[name];
    if (given === undefined && !schema.required?.includes(name)) continue;
    const problem = propertyProblem(property, given);
    if (problem) problems.push(`${name}: ${problem}`);
    else value[name] = given;
  }
  if (problems.length > 0) return { ok: false, error: problems.join("; ") };
  return { ok: true, value: value as FromSchema<S> };
}

function propertyProblem(property: PropertySchema, value: unknown): string | undefined {
  const { type, minLength, minimum, maximum } = property;
  if (property.enum) {
    const options = property.enum.map((option) => JSON.stringify(option)).join("|");
    return property.enum.includes(value as string) ? undefined : `Invalid option: expected one of ${options}`;
  }
  const wanted = type === "integer" ? "number" : type;
  if (typeof value !== wanted) return `Invalid input: expected ${wanted}, received ${kindOf(value)}`;
  if (type === "integer" && !Number.isInteger(value)) return "Invalid input: expected int, received number";
  if (typeof value === "string" && minLength !== undefined && value.length < minLength) {
    return `Too small: expected string to have >=${minLength} characters`;
  }
  if (typeof value === "number" && minimum !== undefined && value < minimum) {
    return `Too small: expected number to be >=${minimum}`;
  }
  if (typeof value === "number" && maximum !== undefined && value > maximum) {
    return `Too big: expected number to be <=${maximum}`;
  }
  return undefined;
}

/** How zod names what it received. */
function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}
