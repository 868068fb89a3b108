/**
 * A tool's input checked against the JSON Schema the model reads. One schema is both what the
 * model is told and what the handler accepts, and the first request needs no library to make it.
 *
 * The check is a JSON Schema validator's (`@cfworker/json-schema`: eight small modules, loaded
 * the first time a tool's input is checked, not as the harness starts), and each problem is
 * worded as it words it. The types below give the handler its input's type from the same object;
 * they read the keywords the chapter's tools use (flat properties of type string, integer, number
 * or boolean, an `enum`).
 */
import { createRequire } from "node:module";
import type { OutputUnit, Validator } from "@cfworker/json-schema";
import type { ZodError } from "zod";
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

/** The validator made for each schema, once; the library is loaded with the first. */
const validators = new WeakMap<ObjectSchema, Validator>();

function validatorFor(schema: ObjectSchema): Validator {
  let validator = validators.get(schema);
  if (!validator) {
    // `require`, because a check is synchronous
    const { Validator } = createRequire(import.meta.url)(
      "@cfworker/json-schema",
    ) as typeof import("@cfworker/json-schema");
    validator = new Validator(schema as object, "2020-12", false); // false: every problem, not the first
    validators.set(schema, validator);
  }
  return validator;
}

/**
 * Check `input` against `schema`: the input with only the schema's properties (a property the
 * model was told not to send is dropped rather than failing the call), or every problem, as
 * `schemaProblems` words them.
 * Contract: never throws.
 */
export function checkInput<S extends ObjectSchema>(schema: S, input: unknown): Parsed<FromSchema<S>> {
  const value =
    input !== null && typeof input === "object" && !Array.isArray(input)
      ? Object.fromEntries(
          Object.entries(input).filter(([key, v]) => Object.hasOwn(schema.properties, key) && v !== undefined),
        )
      : input;
  const result = validatorFor(schema).validate(value);
  if (result.valid) return { ok: true, value: value as FromSchema<S> };
  return { ok: false, error: schemaProblems(result.errors) };
}

/**
 * The validator's problems as one line: each as `field: message` (`input` for the whole), joined
 * by `; `. A missing property is named as the field; a `properties` entry only says a property
 * below failed, which its own entry tells.
 */
export function schemaProblems(errors: readonly OutputUnit[]): string {
  return errors
    .filter((e) => e.keyword !== "properties")
    .map((e) => {
      const missing = e.keyword === "required" ? /required property "(.*)"/.exec(e.error)?.[1] : undefined;
      return `${fieldOf(e.instanceLocation, missing)}: ${e.error}`;
    })
    .join("; ");
}

/** `#/old_string` as `old_string`, `#/a/b` as `a.b`, `#` as `input` (JSON Pointer's ~1 and ~0 undone). */
function fieldOf(location: string, property?: string): string {
  const parts = location.replace(/^#\/?/, "").split("/").filter(Boolean);
  const names = [...parts.map((p) => p.replaceAll("~1", "/").replaceAll("~0", "~")), ...(property ? [property] : [])];
  return names.length ? names.join(".") : "input";
}

/** zod's problems as one line: each as `field: message` (`input` for the whole), joined by `; `. */
export function zodProblems(error: ZodError): string {
  return error.issues.map((i) => `${i.path.length ? i.path.join(".") : "input"}: ${i.message}`).join("; ");
}
