import { existsSync } from "node:fs";
import { join } from "node:path";
import { ALL_TOOLS, defineTool, runToolCalls, toolMap } from "@harness/s02-tool-dispatch";
import { type ToolCall, toolOutput } from "@harness/shared";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  type AskPermission,
  type PermissionAnswer,
  type PermissionMode,
  type PermissionRequest,
  type PermissionSettings,
  permissionGate,
  whatAsks,
} from "../src/index.ts";
import { bash, settingsFor, tool } from "./temp-project.ts";

const tools = toolMap(ALL_TOOLS);

/** An ask callback that answers from a list, and keeps every request it was put. */
function answering(...answers: PermissionAnswer[]): AskPermission & { requests: PermissionRequest[] } {
  const requests: PermissionRequest[] = [];
  const ask = async (request: PermissionRequest) => {
    requests.push(request);
    return answers.shift() ?? "no";
  };
  return Object.assign(ask, { requests });
}

/** Run `calls` as one turn through the gate. */
function runTurn(
  calls: ToolCall[],
  cwd: string,
  settings: PermissionSettings,
  { mode = "default", ask }: { mode?: PermissionMode; ask?: AskPermission } = {},
) {
  const gate = permissionGate({ settings, mode, ask });
  return runToolCalls(tools, calls, { cwd, signal: new AbortController().signal }, undefined, gate);
}

describe("permissionGate", () => {
  it("runs an allowed call, and answers a denied one with why, running nothing", async () => {
    const { cwd, settings } = settingsFor({ allow: ["Bash(touch ok)"], deny: ["Bash(rm:*)"] }, { build: "x" });
    const [ran, refused] = await runTurn([bash("touch ok"), bash("rm build")], cwd, settings);
    expect(ran).toMatchObject({ isError: false });
    expect(existsSync(join(cwd, "ok"))).toBe(true);
    expect(refused).toEqual({
      content: "Error [denied]: denied by rule Bash(rm:*) in .harness/settings.json: the simple command `rm build`",
      isError: true,
    });
    expect(existsSync(join(cwd, "build"))).toBe(true);
  });

  it("asks about a call that asks, and runs it on yes", async () => {
    const { cwd, settings } = settingsFor(undefined);
    const ask = answering("yes");
    const [result] = await runTurn([bash("touch made")], cwd, settings, { ask });
    expect(result.isError).toBe(false);
    expect(existsSync(join(cwd, "made"))).toBe(true);
    expect(ask.requests).toEqual([
      expect.objectContaining({
        question:
          "the simple command `touch made` asks (in default mode a command asks). Run it? (always allows Bash(touch made))",
        choices: ["yes", "no", "always"],
        rules: ["Bash(touch made)"],
      }),
    ]);
  });

  it("refuses on no, saying why and naming the rule that would allow it", async () => {
    const { cwd, settings } = settingsFor({ allow: ["Bash(git diff:*)"] }, { "build/a": "x" });
    const [result] = await runTurn([bash("git diff && rm -rf build")], cwd, settings, { ask: answering("no") });
    expect(result).toEqual({
      content:
        "Error [not_approved]: the simple command `rm -rf build` in `git diff && rm -rf build` asks (in default mode a command asks), " +
        "and the answer was no, so nothing ran. The rule that would allow it: Bash(rm -rf build).",
      isError: true,
    });
    expect(existsSync(join(cwd, "build"))).toBe(true);
  });

  it("answers no for the user when no one can be asked, and says so", async () => {
    const { cwd, settings } = settingsFor(undefined);
    const [result] = await runTurn([tool("write_file", { path: "a.txt", content: "x" })], cwd, settings);
    expect(result.content).toBe(
      "Error [not_approved]: write_file of a.txt asks (in default mode an edit asks), and there was no one to ask, " +
        "so nothing ran. The rule that would allow it: Edit(/a.txt).",
    );
    expect(existsSync(join(cwd, "a.txt"))).toBe(false);
  });

  it("on always, allows the call and its like for as long as the settings live, without asking again", async () => {
    const { cwd, settings } = settingsFor(undefined);
    const ask = answering("always");
    await runTurn([bash("touch one")], cwd, settings, { ask });
    const [again] = await runTurn([bash("touch one")], cwd, settings, { ask });
    expect(again.isError).toBe(false);
    expect(ask.requests).toHaveLength(1);
    expect(settings.rules.at(-1)).toMatchObject({ behavior: "allow", source: "this session" });
    // only what the rule names: another command still asks
    const [other] = await runTurn([bash("touch two")], cwd, settings, { ask });
    expect(other.content).toMatch(/^Error \[not_approved\]/);
    expect(ask.requests).toHaveLength(2);
  });

  it("offers no always when no allow rule can let the call through (an ask rule names it)", async () => {
    const { cwd, settings } = settingsFor({ allow: ["Bash"], ask: ["Bash(git push:*)"] });
    const ask = answering("no");
    const [result] = await runTurn([bash("git push origin main")], cwd, settings, { ask });
    expect(ask.requests[0]).toMatchObject({
      choices: ["yes", "no"],
      rules: [],
      question:
        "the simple command `git push origin main` asks by rule Bash(git push:*) in .harness/settings.json. Run it?",
    });
    expect(result.content).not.toContain("The rule that would allow it");
  });

  it("refuses every edit and command in plan mode, telling the model it is planning, and runs reads", async () => {
    const { cwd, settings } = settingsFor(undefined, { "notes.txt": "draft\n" });
    const [edit, run, read] = await runTurn(
      [
        tool("edit_file", { path: "notes.txt", old_string: "draft", new_string: "final" }),
        bash("echo hi"),
        tool("read_file", { path: "notes.txt" }),
      ],
      cwd,
      settings,
      { mode: "plan", ask: answering("yes", "yes") },
    );
    expect(edit.content).toMatch(/^Error \[denied\]: refused: you are in plan mode: .*write your plan as your answer/);
    expect(run.content).toMatch(/^Error \[denied\]: refused: you are in plan mode/);
    expect(read).toMatchObject({ isError: false, content: expect.stringContaining("draft") });
  });

  it("answers a call that can never run with dispatch's error, without a question", async () => {
    const { cwd, settings } = settingsFor(undefined);
    const ask = answering("yes");
    const [unknown, invalid] = await runTurn(
      [tool("frobnicate", {}), tool("write_file", { path: "a.txt" })],
      cwd,
      settings,
      { ask },
    );
    expect(unknown.content).toMatch(/^Error \[unknown_tool\]/);
    expect(invalid.content).toMatch(/^Error \[invalid_arguments\]/);
    expect(ask.requests).toEqual([]);
  });

  it("keeps glob and grep from reading what a Read rule denies (.env, by default)", async () => {
    const { cwd, settings } = settingsFor(
      { deny: ["Read(secrets/**)"] },
      { ".env": "KEY=TODO\n", "secrets/k.txt": "TODO\n", "src/.env.local": "TODO=1\n", "app.js": "// TODO\n" },
    );
    const [grep, glob] = await runTurn(
      [tool("grep", { pattern: "TODO" }), tool("glob", { pattern: "**/*" })],
      cwd,
      settings,
    );
    expect(grep.content).toBe("app.js:1: // TODO");
    expect(glob.content).toBe("app.js");
  });

  it("in a batch that runs at once, answers a refused call and still runs the others, in tool_use order", async () => {
    const { cwd, settings } = settingsFor(
      { deny: ["Read(b.txt)"] },
      { "a.txt": "A\n", "b.txt": "B\n", "c.txt": "C\n" },
    );
    const results = await runTurn(
      ["a.txt", "b.txt", "c.txt"].map((path, i) => ({ ...tool("read_file", { path }), id: `toolu_${i}` })),
      cwd,
      settings,
    );
    expect(results.map((r) => [r.isError, r.content.includes("A") || r.content.includes("C")])).toEqual([
      [false, true],
      [true, false],
      [false, true],
    ]);
    expect(results[1].content).toMatch(/^Error \[denied\]: denied by rule Read\(b\.txt\)/);
  });

  it("puts one question at a time, even for calls that run at once", async () => {
    const { cwd, settings } = settingsFor({ ask: ["Read(*.txt)"] }, { "a.txt": "A\n", "b.txt": "B\n" });
    let open = 0;
    let most = 0;
    const ask: AskPermission = async () => {
      most = Math.max(most, ++open);
      await new Promise((resolve) => setTimeout(resolve, 5));
      open--;
      return "yes";
    };
    const calls = ["a.txt", "b.txt"].map((path, i) => ({ ...tool("read_file", { path }), id: `toolu_${i}` }));
    const results = await runTurn(calls, cwd, settings, { ask });
    expect(results.every((r) => !r.isError)).toBe(true);
    expect(most).toBe(1);
  });

  it("answers a call asked about when Ctrl-C came as interrupted, not as refused", async () => {
    const { cwd, settings } = settingsFor(undefined);
    const controller = new AbortController();
    const ask: AskPermission = async () => {
      controller.abort();
      return "no";
    };
    const gate = permissionGate({ settings, mode: "default", ask });
    const [result] = await runToolCalls(tools, [bash("touch x")], { cwd, signal: controller.signal }, undefined, gate);
    expect(result.content).toMatch(/^Error \[interrupted\]/);
  });

  it("runs a call through the runner it wraps, with the context's canRead", async () => {
    const { cwd, settings } = settingsFor(undefined, { ".env": "K=1\n" });
    const seen: boolean[] = [];
    const probe = defineTool({
      name: "read_file",
      description: "probe",
      schema: z.object({ path: z.string() }),
      concurrencySafe: true,
      run: async (_input, context) => {
        seen.push(context.canRead?.(join(cwd, ".env")) ?? true, context.canRead?.(join(cwd, "a.txt")) ?? false);
        return toolOutput("ok");
      },
    });
    const gate = permissionGate({ settings, mode: "default" });
    await runToolCalls(toolMap([probe]), [tool("read_file", { path: "a.txt" })], { cwd }, undefined, gate);
    expect(seen).toEqual([false, true]);
  });
});

describe("whatAsks", () => {
  it("puts the subject first, and leaves a reason it cannot read as it is", () => {
    expect(whatAsks({ behavior: "ask", reason: "asks (in default mode an edit asks): edit_file of notes.txt" })).toBe(
      "edit_file of notes.txt asks (in default mode an edit asks)",
    );
    expect(whatAsks({ behavior: "ask", reason: "something else" })).toBe("something else");
  });
});
