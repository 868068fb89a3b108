/**
 * What s04's loop adds to s03's: a model call that fails is told to the listeners (`model_error`)
 * before its error leaves the loop, so every run ends with an event. Everything else is s03's
 * loop, met here once more through its events; the trace that listens is trace-recorder.test.ts's.
 */
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { readFileTool, toolMap } from "@harness/s02-tool-dispatch";
import { sendStreamed } from "@harness/s03-streaming";
import { reply, ScriptedModel, type ScriptStep, textReply, toolUse } from "@harness/scripted-model";
import { historyProblems } from "@harness/shared";
import { describe, expect, it } from "vitest";
import { agentLoop } from "../src/agent-loop.ts";
import type { TracedEvent } from "../src/trace-recorder.ts";
import { tempDir } from "./scripted-trace.ts";

/** Run the loop on one prompt against `script`; every event it emits, in order, and how it ended. */
async function run(script: ScriptStep[]) {
  const model = new ScriptedModel({ script });
  const messages: MessageParam[] = [{ role: "user", content: "go" }];
  const events: TracedEvent[] = [];
  const options = { model: "m", cwd: tempDir("s04-loop-"), tools: toolMap([readFileTool]) };
  const ended = await agentLoop(sendStreamed(model.client({ maxRetries: 0 }), 0), messages, {
    ...options,
    emit: (event) => events.push(event),
  }).then(
    (result) => ({ result }),
    (error: unknown) => ({ error }),
  );
  return { ended, events, messages };
}

describe("agentLoop", () => {
  it("tells model_error, with the error it throws, before a failed call's error leaves the loop", async () => {
    const { ended, events, messages } = await run([
      reply([toolUse("read_file", { path: "notes.txt" })]),
      { kind: "http_error", status: 400, message: "messages: bad" },
    ]);
    expect("error" in ended).toBe(true);
    expect(events.map((e) => e.type)).toEqual([
      "model_call",
      "stream_start",
      "turn",
      "tool_call",
      "tool_result",
      "model_call",
      "model_error",
    ]);
    expect(events.at(-1)).toEqual({ type: "model_error", error: "error" in ended ? ended.error : undefined });
    // the history is as it was before the failed call
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(historyProblems(messages)).toEqual([]);
  });

  it("tells model_error when a stream fails after its content started", async () => {
    const { ended, events } = await run([
      reply([toolUse("read_file", { path: "x" })]),
      { kind: "cut", afterEvents: 3 },
    ]);
    expect("error" in ended).toBe(true);
    expect(events.filter((e) => e.type === "model_error")).toHaveLength(1);
    expect(events.at(-1)?.type).toBe("model_error");
  });

  it("ends a run that returns with end, holding the result it returns, and tells no model_error", async () => {
    const { ended, events } = await run([reply([toolUse("read_file", { path: "x" })]), textReply("Done.")]);
    expect(events.at(-1)).toEqual({ type: "end", result: "result" in ended ? ended.result : undefined });
    expect(events.filter((e) => e.type === "end")).toHaveLength(1);
    expect(events.some((e) => e.type === "model_error")).toBe(false);
  });
});
