/**
 * word_count, the tool exercise 1 of the chapter text builds: one object, one schema, offered by
 * adding it to a map. With the exercise's stub in src/tools/word-count.ts every test here fails;
 * the chapter's file passes them all.
 */
import { symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { reply, ScriptedModel, textReply, toolUse } from "@harness/scripted-model";
import { appendUserText, type ToolCall } from "@harness/shared";
import { describe, expect, it } from "vitest";
import { agentLoop } from "../../src/agent-loop.ts";
import { dispatch, toolMap } from "../../src/dispatch.ts";
import { runToolCalls } from "../../src/run-tool-calls.ts";
import { ALL_TOOLS } from "../../src/tools/index.ts";
import { wordCountTool } from "../../src/tools/word-count.ts";
import { tempWorkdir } from "../temp-workdir.ts";

const TOOLS = toolMap([...ALL_TOOLS, wordCountTool]);
const call = (input: Record<string, unknown>, id = "toolu_1"): ToolCall => ({ id, name: "word_count", input });

describe("word_count", () => {
  it("counts the words of a text file, whatever spaces and lines are between them", async () => {
    const cwd = tempWorkdir();
    writeFileSync(join(cwd, "notes.txt"), "this is  a draft\n\t// TODO: say more\n");
    expect(await dispatch(TOOLS, call({ path: "notes.txt" }), { cwd })).toEqual({
      content: "notes.txt: 8 words",
      isError: false,
    });
  });

  it("asks the model for a path, in one schema", () => {
    expect(wordCountTool.inputSchema).toMatchObject({
      type: "object",
      properties: { path: { type: "string" } },
      required: ["path"],
    });
  });

  it("answers input without a path with invalid_arguments, the handler never run", async () => {
    const result = await dispatch(TOOLS, call({}), { cwd: tempWorkdir() });
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/^Error \[invalid_arguments\]: word_count: path: /);
  });

  it("refuses a path out of the working directory, a symlink pointing out included", async () => {
    const cwd = tempWorkdir();
    const outside = tempWorkdir();
    writeFileSync(join(outside, "secret.txt"), "do not count me\n");
    symlinkSync(join(outside, "secret.txt"), join(cwd, "link.txt"));
    for (const path of ["../secret.txt", join(outside, "secret.txt"), "link.txt"]) {
      expect((await dispatch(TOOLS, call({ path }), { cwd })).content).toMatch(/^Error \[outside_workdir\]: /);
    }
  });

  it("answers a missing or binary file with its code", async () => {
    const cwd = tempWorkdir();
    writeFileSync(join(cwd, "image.bin"), Buffer.from([0x89, 0x50, 0x00, 0x47]));
    expect((await dispatch(TOOLS, call({ path: "nothing.txt" }), { cwd })).content).toMatch(/^Error \[not_found\]: /);
    expect((await dispatch(TOOLS, call({ path: "image.bin" }), { cwd })).content).toMatch(/^Error \[binary_file\]: /);
  });

  it("only reads, so it runs at the same time as read_file", async () => {
    expect(wordCountTool.concurrencySafe).toBe(true);
    const cwd = tempWorkdir();
    writeFileSync(join(cwd, "a.txt"), "one two three\n");
    const calls: ToolCall[] = [
      call({ path: "a.txt" }, "toolu_1"),
      { id: "toolu_2", name: "read_file", input: { path: "a.txt" } },
    ];
    const events: string[] = [];
    const results = await runToolCalls(TOOLS, calls, { cwd }, (event) => events.push(event.type));
    expect(results.map((result) => result.content)).toEqual(["a.txt: 3 words", "1\tone two three"]);
    expect(events.slice(0, 2)).toEqual(["tool_call", "tool_call"]); // both started before either ended
  });

  it("is offered by the loop when the map holds it, and a call is routed to it", async () => {
    const cwd = tempWorkdir();
    writeFileSync(join(cwd, "notes.txt"), "three short words\n");
    const model = new ScriptedModel({
      script: [reply([toolUse("word_count", { path: "notes.txt" }, "toolu_1")]), textReply("It has 3 words.")],
    });
    const messages: MessageParam[] = [];
    appendUserText(messages, "How many words are in notes.txt?");
    const result = await agentLoop(model.client({ maxRetries: 0 }), messages, {
      model: "test-model",
      cwd,
      tools: TOOLS,
    });
    expect(model.requests[0].body.tools?.map((t) => (t as { name: string }).name)).toContain("word_count");
    expect(messages[2].content).toEqual([
      { type: "tool_result", tool_use_id: "toolu_1", content: "notes.txt: 3 words", is_error: false },
    ]);
    expect(result).toMatchObject({ stopReason: "final_answer", toolCalls: 1 });
  });
});
