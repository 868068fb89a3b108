import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, toApiTool } from "../src/tool.ts";
import { ALL_TOOLS } from "../src/tools/index.ts";

describe("toApiTool", () => {
  it("turns the zod schema into the JSON Schema the model reads, descriptions included", () => {
    const tool = defineTool({
      name: "greet",
      description: "Say hello.",
      schema: z.object({
        who: z.string().describe("Whom to greet."),
        times: z.number().int().min(1).optional(),
      }),
      concurrencySafe: true,
      run: async ({ who }) => ({ content: `hello ${who}`, isError: false }),
    });
    const api = toApiTool(tool);
    expect(api.name).toBe("greet");
    expect(api.description).toBe("Say hello.");
    expect(api.input_schema).toMatchObject({
      type: "object",
      properties: { who: { type: "string", description: "Whom to greet." }, times: { type: "integer", minimum: 1 } },
      required: ["who"],
    });
    expect(api.input_schema).not.toHaveProperty("$schema");
  });

  it("gives every tool of the chapter a unique name and an object schema", () => {
    const apis = ALL_TOOLS.map(toApiTool);
    expect(new Set(apis.map((t) => t.name)).size).toBe(ALL_TOOLS.length);
    expect(apis.map((t) => t.name)).toEqual(["bash", "read_file", "write_file", "edit_file", "glob", "grep"]);
    for (const api of apis) expect(api.input_schema.type).toBe("object");
  });

  it("marks only the tools that read as safe to run together", () => {
    const safe = ALL_TOOLS.filter((t) => t.concurrencySafe).map((t) => t.name);
    expect(safe).toEqual(["read_file", "glob", "grep"]);
  });
});
