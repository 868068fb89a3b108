import { describe, expect, it } from "vitest";
import { checkInput, type ObjectSchema } from "../../src/tools/check-input.ts";
import { ALL_TOOLS } from "../../src/tools/index.ts";

// one schema with every keyword the chapter's tools use
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

describe("checkInput", () => {
  it.each([
    ["every field right", { path: "a", old_string: "x", offset: 2, ratio: 0.5, ignore_case: true, mode: "fast" }],
    ["only the required fields", { path: "a", old_string: "x" }],
  ])("accepts %s, as it came", (_what, input) => {
    expect(checkInput(schema, input)).toEqual({ ok: true, value: input });
  });

  it("drops a property the schema does not name, and one given as undefined, rather than failing the call", () => {
    expect(checkInput(schema, { path: "a", old_string: "x", extra: 1, offset: undefined })).toEqual({
      ok: true,
      value: { path: "a", old_string: "x" },
    });
  });

  it.each([
    [
      "nothing at all",
      {},
      'path: Instance does not have required property "path".; old_string: Instance does not have required property "old_string".',
    ],
    [
      "a number for a string",
      { path: 1, old_string: "x" },
      'path: Instance type "number" is invalid. Expected "string".',
    ],
    [
      "null and an array",
      { path: null, old_string: "x", offset: [] },
      'path: Instance type "null" is invalid. Expected "string".; offset: Instance type "array" is invalid. Expected "integer".',
    ],
    ["an empty string below minLength", { path: "a", old_string: "" }, "old_string: String is too short (0 < 1)."],
    [
      "a fraction for an integer",
      { path: "a", old_string: "x", offset: 1.5 },
      'offset: Instance type "number" is invalid. Expected "integer".',
    ],
    [
      "a string for an integer",
      { path: "a", old_string: "x", offset: "1" },
      'offset: Instance type "string" is invalid. Expected "integer".',
    ],
    ["a number below the minimum", { path: "a", old_string: "x", offset: 0 }, "offset: 0 is less than 1."],
    ["a number above the maximum", { path: "a", old_string: "x", ratio: 2 }, "ratio: 2 is greater than 1."],
    [
      "a string for a boolean",
      { path: "a", old_string: "x", ignore_case: "yes" },
      'ignore_case: Instance type "string" is invalid. Expected "boolean".',
    ],
    [
      "a value outside the enum",
      { path: "a", old_string: "x", mode: "medium" },
      'mode: Instance does not match any of ["fast","slow"].',
    ],
    [
      "several problems at once",
      { path: 7, old_string: "", offset: 0 },
      'path: Instance type "number" is invalid. Expected "string".; old_string: String is too short (0 < 1).; offset: 0 is less than 1.',
    ],
    ["an input that is not an object", "a", 'input: Instance type "string" is invalid. Expected "object".'],
    ["an array for the input", [], 'input: Instance type "array" is invalid. Expected "object".'],
  ])("refuses %s, naming every wrong field in the validator's words", (_what, input, error) => {
    expect(checkInput(schema, input)).toEqual({ ok: false, error });
  });

  it("checks each of the chapter's six tools with the schema the model reads", () => {
    for (const tool of ALL_TOOLS) {
      expect(tool.inputSchema).toMatchObject({ type: "object", additionalProperties: false });
      expect(tool.parse({}).ok).toBe(false); // each has a required field
    }
  });
});
