import type { ToolCall } from "@harness/shared";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { codedError, dispatch, toolMap } from "../src/dispatch.ts";
import { defineTool } from "../src/tool.ts";

/** A tool that records every input its handler receives. */
function recordingTool() {
  const received: unknown[] = [];
  const tool = defineTool({
    name: "read_file",
    description: "Read a file.",
    schema: z.object({ path: z.string(), limit: z.number().int().min(1).optional() }),
    concurrencySafe: true,
    run: async (input) => {
      received.push(input);
      return { content: `read ${input.path}`, isError: false };
    },
  });
  return { tool, received };
}

const failing = defineTool({
  name: "explode",
  description: "Always throws.",
  schema: z.object({}),
  concurrencySafe: false,
  run: async () => {
    throw new Error("disk on fire");
  },
});

function call(name: string, input: Record<string, unknown>, inputError?: string): ToolCall {
  return { id: "toolu_1", name, input, ...(inputError ? { inputError } : {}) };
}

const context = { cwd: process.cwd(), signal: new AbortController().signal };

describe("dispatch", () => {
  it("routes a call by name to its handler with the parsed input", async () => {
    const { tool, received } = recordingTool();
    const result = await dispatch(toolMap([tool]), call("read_file", { path: "a.txt" }), context);
    expect(result).toEqual({ content: "read a.txt", isError: false });
    expect(received).toEqual([{ path: "a.txt" }]);
  });

  it("answers an unknown tool with unknown_tool and the names it has", async () => {
    const { tool, received } = recordingTool();
    const result = await dispatch(toolMap([tool, failing]), call("delete_everything", {}), context);
    expect(result).toEqual({
      content: 'Error [unknown_tool]: there is no tool "delete_everything". Tools: read_file, explode.',
      isError: true,
    });
    expect(received).toEqual([]);
  });

  it("answers invalid arguments with invalid_arguments naming the field, and never calls the handler", async () => {
    const { tool, received } = recordingTool();
    const tools = toolMap([tool]);
    const wrongType = await dispatch(tools, call("read_file", { path: 42 }), context);
    expect(wrongType.isError).toBe(true);
    expect(wrongType.content).toMatch(/^Error \[invalid_arguments\]: read_file: path: .*expected string/);
    const missing = await dispatch(tools, call("read_file", {}), context);
    expect(missing.content).toMatch(/^Error \[invalid_arguments\]: read_file: path: /);
    const tooSmall = await dispatch(tools, call("read_file", { path: "a", limit: 0 }), context);
    expect(tooSmall.content).toMatch(/^Error \[invalid_arguments\]: read_file: limit: /);
    expect(received).toEqual([]);
  });

  it("names every field that is wrong, not just the first", async () => {
    const { tool } = recordingTool();
    const result = await dispatch(toolMap([tool]), call("read_file", { path: 1, limit: "ten" }), context);
    expect(result.content).toMatch(/read_file: path: .*; limit: /);
  });

  it("answers a call whose input did not parse with invalid_arguments, and never calls the handler", async () => {
    const { tool, received } = recordingTool();
    const result = await dispatch(
      toolMap([tool]),
      call("read_file", {}, 'the input is not a JSON object: {"path": "a.txt"'),
      context,
    );
    expect(result).toEqual({
      content: 'Error [invalid_arguments]: the input is not a JSON object: {"path": "a.txt"',
      isError: true,
    });
    expect(received).toEqual([]);
  });

  it("answers a handler that throws with handler_failed and the error's message", async () => {
    const result = await dispatch(toolMap([failing]), call("explode", {}), context);
    expect(result).toEqual({ content: "Error [handler_failed]: explode: disk on fire", isError: true });
  });

  it("answers a call that arrives after Ctrl-C with interrupted, and never calls the handler", async () => {
    const { tool, received } = recordingTool();
    const controller = new AbortController();
    controller.abort();
    const result = await dispatch(toolMap([tool]), call("read_file", { path: "a" }), {
      ...context,
      signal: controller.signal,
    });
    expect(result).toEqual({
      content: "Error [interrupted]: the user interrupted before this call ran.",
      isError: true,
    });
    expect(received).toEqual([]);
  });

  it("drops input fields the schema does not name before the handler sees them", async () => {
    const { tool, received } = recordingTool();
    await dispatch(toolMap([tool]), call("read_file", { path: "a", extra: true }), context);
    expect(received).toEqual([{ path: "a" }]);
  });
});

describe("codedError", () => {
  it("puts the code first, in brackets, and marks the result as an error", () => {
    expect(codedError("not_found", "a.txt does not exist.")).toEqual({
      content: "Error [not_found]: a.txt does not exist.",
      isError: true,
    });
  });
});

describe("toolMap", () => {
  it("adds a tool by adding one entry", () => {
    const { tool } = recordingTool();
    expect([...toolMap([tool, failing]).keys()]).toEqual(["read_file", "explode"]);
  });
});
