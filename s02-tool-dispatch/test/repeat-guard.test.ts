import { readFileSync } from "node:fs";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { isValidHistory, reply, ScriptedModel, textReply, toolUse } from "@harness/shared";
import { describe, expect, it } from "vitest";
import { agentLoop } from "../src/agent-loop.ts";
import { callKey, REPEAT_LIMIT, RepeatGuard } from "../src/repeat-guard.ts";
import { tempWorkdir } from "./temp-workdir.ts";

const call = (input: Record<string, unknown>, name = "read_file", id = "t") => ({ id, name, input });

describe("callKey", () => {
  it("is the same for the same name and input whatever the key order", () => {
    expect(callKey(call({ path: "a", limit: 2 }))).toBe(callKey(call({ limit: 2, path: "a" })));
    expect(callKey(call({ o: { b: 1, a: 2 } }))).toBe(callKey(call({ o: { a: 2, b: 1 } })));
  });

  it("differs when the name or any input differs", () => {
    expect(callKey(call({ path: "a" }))).not.toBe(callKey(call({ path: "b" })));
    expect(callKey(call({ path: "a" }))).not.toBe(callKey(call({ path: "a" }, "glob")));
  });
});

describe("RepeatGuard", () => {
  it(`fires when a call comes back for the ${REPEAT_LIMIT}th turn in a row`, () => {
    const guard = new RepeatGuard();
    const fired = Array.from({ length: REPEAT_LIMIT }, () => guard.repeats([call({ path: "a" })]));
    expect(fired).toEqual([...Array(REPEAT_LIMIT - 1).fill(false), true]);
  });

  it("counts the same call twice in one turn once", () => {
    const guard = new RepeatGuard();
    expect(guard.repeats([call({ path: "a" }), call({ path: "a" }), call({ path: "a" })])).toBe(false);
    expect(guard.repeats([call({ path: "a" }), call({ path: "b" })])).toBe(false);
    expect(guard.repeats([call({ path: "b" }), call({ path: "a" })])).toBe(true);
  });

  it("starts counting again after a turn without the call", () => {
    const guard = new RepeatGuard();
    const calls = [{ path: "a" }, { path: "a" }, { path: "b" }, { path: "a" }, { path: "a" }];
    expect(calls.map((input) => guard.repeats([call(input)]))).toEqual([false, false, false, false, false]);
  });
});

describe("agentLoop with a model that repeats itself", () => {
  it("stops with repeated_tool_call instead of spending the budget, and runs the repeat not", async () => {
    const cwd = tempWorkdir();
    const same = () => reply([toolUse("bash", { command: "echo again >> log.txt" })]);
    const model = new ScriptedModel({ script: [same(), same(), same(), same(), textReply("never reached")] });
    const messages: MessageParam[] = [{ role: "user", content: "loop" }];
    const result = await agentLoop(model.client(), messages, { model: "m", cwd, maxTurns: 8 });
    expect(result.stopReason).toBe("repeated_tool_call");
    expect(result.turns).toBe(REPEAT_LIMIT);
    expect(result.toolCalls).toBe(REPEAT_LIMIT - 1);
    expect(readFileSync(`${cwd}/log.txt`, "utf8")).toBe("again\n".repeat(REPEAT_LIMIT - 1));
    const last = messages.at(-1);
    expect(JSON.stringify(last)).toContain("Error [repeated_tool_call]");
    expect(isValidHistory(messages)).toBe(true);
  });

  it("lets the same command run again when something else happened in between", async () => {
    const cwd = tempWorkdir();
    const echo = () => reply([toolUse("bash", { command: "echo x" })]);
    const other = reply([toolUse("bash", { command: "echo y" })]);
    const model = new ScriptedModel({ script: [echo(), echo(), other, echo(), echo(), textReply("done")] });
    const messages: MessageParam[] = [{ role: "user", content: "go" }];
    const result = await agentLoop(model.client(), messages, { model: "m", cwd, maxTurns: 8 });
    expect(result).toMatchObject({ stopReason: "final_answer", turns: 6, toolCalls: 5 });
    expect(isValidHistory(messages)).toBe(true);
  });
});
