import { describe, expect, it } from "vitest";
import { z } from "zod";
import { dispatch, toolMap } from "../src/dispatch.ts";
import { defineTool, type Tool, toApiTool } from "../src/tool.ts";
import { ALL_TOOLS, readFileTool } from "../src/tools/index.ts";

describe("defineTool", () => {
  const greet = defineTool({
    name: "greet",
    description: "Say hello.",
    schema: z.object({ who: z.string(), times: z.number().int().min(1).optional() }),
    concurrencySafe: true,
    run: async ({ who }) => ({ content: `hello ${who}`, isError: false }),
  });

  it("derives parse from the zod schema: the parsed value, unknown fields dropped", () => {
    expect(greet.parse({ who: "Ada", extra: 1 })).toEqual({ ok: true, value: { who: "Ada" } });
  });

  it("derives parse's error from the zod schema, naming every field that is wrong", () => {
    const parsed = greet.parse({ who: 7, times: 0 });
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? "" : parsed.error).toMatch(/^who: .*expected string.*; times: /);
  });
});

describe("a tool known only by its JSON Schema", () => {
  // the shape of a tool an MCP server lists: a name, a description and a JSON Schema, no zod
  const inputSchema = {
    type: "object" as const,
    properties: { city: { type: "string", description: "A city name." } },
    required: ["city"],
  };
  const weather: Tool<{ city: string }> = {
    name: "weather",
    description: "The weather in a city.",
    inputSchema,
    parse: (input) => {
      const city = (input as { city?: unknown }).city;
      return typeof city === "string"
        ? { ok: true, value: { city } }
        : { ok: false, error: "city: a string is required" };
    },
    concurrencySafe: true,
    run: async ({ city }) => ({ content: `Sunny in ${city}.`, isError: false }),
  };
  const tools = toolMap([readFileTool, weather]);
  const context = { cwd: process.cwd() };

  it("is offered to the model with its schema as it is", () => {
    expect(toApiTool(weather)).toEqual({
      name: "weather",
      description: "The weather in a city.",
      input_schema: inputSchema,
    });
  });

  it("sits in the same map as the zod tools and is dispatched like them", async () => {
    expect([...tools.keys()]).toEqual(["read_file", "weather"]);
    const call = { id: "toolu_1", name: "weather", input: { city: "Lisbon" } };
    expect(await dispatch(tools, call, context)).toEqual({ content: "Sunny in Lisbon.", isError: false });
  });

  it("has its own parse refuse bad input before the handler runs", async () => {
    const call = { id: "toolu_2", name: "weather", input: { town: "Lisbon" } };
    expect(await dispatch(tools, call, context)).toEqual({
      content: "Error [invalid_arguments]: weather: city: a string is required",
      isError: true,
    });
  });
});

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
