import { describe, expect, it } from "vitest";
import { z } from "zod";
import { checkInput, type ObjectSchema } from "../../src/tools/check-input.ts";
import { ALL_TOOLS } from "../../src/tools/index.ts";

// one input schema written both ways: the JSON Schema, checked through zod's fromJSONSchema, must answer as
// the same schema written in zod does (zod's objects drop an unknown property)
const schema = {
  type: "object",
  properties: {
    path: { type: "string", description: "A path." },
    old_string: { type: "string", minLength: 1 },
    offset: { type: "integer", minimum: 1 },
    ratio: { type: "number", minimum: 0, maximum: 1 },
    ignore_case: { type: "boolean" },
    mode: { type: "string", enum: ["fast", "slow"] },
  },
  required: ["path", "old_string"],
  additionalProperties: false,
} as const satisfies ObjectSchema;
const reference = z.object({
  path: z.string().describe("A path."),
  old_string: z.string().min(1),
  offset: z.number().int().min(1).optional(),
  ratio: z.number().min(0).max(1).optional(),
  ignore_case: z.boolean().optional(),
  mode: z.enum(["fast", "slow"]).optional(),
});

function zodAnswer(input: unknown) {
  const parsed = reference.safeParse(input);
  if (parsed.success) return { ok: true, value: parsed.data };
  const problems = parsed.error.issues.map((i) => `${i.path.length ? i.path.join(".") : "input"}: ${i.message}`);
  return { ok: false, error: problems.join("; ") };
}

describe("checkInput", () => {
  it.each([
    ["every field right", { path: "a", old_string: "x", offset: 2, ratio: 0.5, ignore_case: true, mode: "fast" }],
    ["only the required fields", { path: "a", old_string: "x" }],
    ["an unknown field, dropped", { path: "a", old_string: "x", extra: 1 }],
    ["an optional field given as undefined", { path: "a", old_string: "x", offset: undefined }],
    ["nothing at all", {}],
    ["a number for a string", { path: 1, old_string: "x" }],
    ["null and an array", { path: null, old_string: "x", offset: [] }],
    ["an empty string below minLength", { path: "a", old_string: "" }],
    ["a fraction for an integer", { path: "a", old_string: "x", offset: 1.5 }],
    ["a string for an integer", { path: "a", old_string: "x", offset: "1" }],
    ["a number below the minimum", { path: "a", old_string: "x", offset: 0 }],
    ["a number above the maximum", { path: "a", old_string: "x", ratio: 2 }],
    ["a string for a boolean", { path: "a", old_string: "x", ignore_case: "yes" }],
    ["a value outside the enum", { path: "a", old_string: "x", mode: "medium" }],
    ["several problems at once", { path: 7, old_string: "", offset: 0, mode: 1 }],
  ])("answers %s as zod does", (_what, input) => {
    expect(checkInput(schema, input)).toEqual(zodAnswer(input));
  });

  it("refuses an input that is not an object", () => {
    expect(checkInput(schema, "a")).toEqual({
      ok: false,
      error: "input: Invalid input: expected object, received string",
    });
  });

  it("checks each of the chapter's six tools with the schema the model reads", () => {
    for (const tool of ALL_TOOLS) {
      expect(tool.inputSchema).toMatchObject({ type: "object", additionalProperties: false });
      expect(tool.parse({}).ok).toBe(false); // each has a required field
    }
  });
});
