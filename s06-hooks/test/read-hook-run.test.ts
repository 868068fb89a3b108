import { describe, expect, it } from "vitest";
import { readHookRun } from "../src/runner/read-hook-run.ts";
import type { HookRun } from "../src/runner/run-hook.ts";
import { commandHook } from "./command-hook.ts";

/** A run as runHook returns it: exit 0, nothing printed, unless `fields` say otherwise. */
function run(fields: Partial<HookRun>): HookRun {
  return {
    hook: commandHook("./hook.sh", { timeoutMs: 5000 }),
    exitCode: 0,
    signal: null,
    stopped: null,
    stdout: "",
    stderr: "",
    stdoutCutBytes: 0,
    startedAt: 0,
    endedAt: 1,
    ...fields,
  };
}

describe("readHookRun", () => {
  it("reads exit 0 with plain stdout as text", () => {
    expect(readHookRun(run({ stdout: "  some context\n" }), "UserPromptSubmit")).toEqual({
      kind: "ok",
      text: "some context",
      notices: [],
    });
  });

  it("reads exit 0 with a JSON object as decisions, ignoring stderr", () => {
    const stdout = JSON.stringify({
      hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "no" },
      systemMessage: "checked",
    });
    expect(readHookRun(run({ stdout, stderr: "debug noise" }), "PreToolUse")).toEqual({
      kind: "ok",
      text: "",
      notices: [],
      output: {
        hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "no" },
        systemMessage: "checked",
      },
    });
  });

  it("reads exit 2 as a block with stderr as the reason, ignoring stdout and its JSON", () => {
    const stdout = JSON.stringify({ hookSpecificOutput: { permissionDecision: "allow" } });
    expect(readHookRun(run({ exitCode: 2, stdout, stderr: "pushing is not allowed\n" }), "PreToolUse")).toEqual({
      kind: "block",
      reason: "pushing is not allowed",
    });
  });

  it("gives a silent exit 2 a reason that names the hook", () => {
    expect(readHookRun(run({ exitCode: 2 }), "Stop")).toEqual({
      kind: "block",
      reason: 'Stop hook "./hook.sh" blocked this (exit 2) without saying why',
    });
  });

  it.each([
    [
      { exitCode: 1, stderr: "jq: command not found\n" },
      'PreToolUse hook "./hook.sh" failed (exit 1): jq: command not found',
    ],
    [{ exitCode: 127 }, 'PreToolUse hook "./hook.sh" failed (exit 127)'],
    [{ exitCode: null, signal: "SIGSEGV" as const }, 'PreToolUse hook "./hook.sh" was killed by SIGSEGV'],
    [
      { exitCode: null, signal: "SIGKILL" as const, stopped: "timeout" as const },
      'PreToolUse hook "./hook.sh" timed out after 5 s; its process group was killed',
    ],
    [{ exitCode: null, stopped: "interrupted" as const }, 'PreToolUse hook "./hook.sh" was interrupted'],
    [
      { exitCode: null, startError: "spawn bash ENOENT" },
      'PreToolUse hook "./hook.sh" could not start: spawn bash ENOENT',
    ],
  ])("reads %j as an error that blocks nothing", (fields, message) => {
    expect(readHookRun(run(fields), "PreToolUse")).toEqual({ kind: "error", message });
  });

  it("reports JSON that does not parse, and says when the output was cut", () => {
    const outcome = readHookRun(run({ stdout: '{"decision": "block", "rea', stdoutCutBytes: 4000 }), "Stop");
    expect(outcome.kind).toBe("error");
    expect(outcome.kind === "error" && outcome.message).toMatch(
      /^Stop hook "\.\/hook\.sh" printed JSON that does not parse \(4000 bytes of it were cut\): /,
    );
  });

  it("reports JSON with a value the protocol does not have, rather than guessing", () => {
    const stdout = JSON.stringify({ hookSpecificOutput: { permissionDecision: "defer" } });
    const outcome = readHookRun(run({ stdout }), "PreToolUse");
    expect(outcome).toEqual({
      kind: "error",
      message: expect.stringMatching(
        /^PreToolUse hook "\.\/hook\.sh" printed JSON this harness cannot act on: hookSpecificOutput\.permissionDecision: /,
      ),
    });
  });

  it("reads a PreToolUse updatedInput, and says when a hook sends one at an event that has no call to change", () => {
    const stdout = JSON.stringify({
      hookSpecificOutput: { permissionDecision: "allow", updatedInput: { command: "ls" } },
    });
    const pre = readHookRun(run({ stdout }), "PreToolUse");
    expect(pre).toMatchObject({
      kind: "ok",
      notices: [],
      output: { hookSpecificOutput: { updatedInput: { command: "ls" } } },
    });
    const post = readHookRun(run({ stdout }), "PostToolUse");
    expect(post.kind === "ok" && post.notices).toEqual([
      'PostToolUse hook "./hook.sh": hookSpecificOutput.updatedInput is not supported at PostToolUse; nothing was changed',
    ]);
  });

  it("reads nothing of stdout that is not one JSON value, and says so in one line", () => {
    const stdout = 'checking...\n{"decision": "block", "reason": "no"}\n';
    const pre = readHookRun(run({ stdout }), "PreToolUse");
    expect(pre).toEqual({
      kind: "ok",
      text: stdout.trim(),
      notices: [
        'PreToolUse hook "./hook.sh" printed something that is not one JSON value (it starts "checking..."), so nothing it printed was read',
      ],
    });
    // where plain text is context for the model, it goes as text: said only when it looks like JSON was meant
    const prompt = readHookRun(run({ stdout }), "UserPromptSubmit");
    expect(prompt.kind === "ok" && prompt.notices).toEqual([
      'UserPromptSubmit hook "./hook.sh" printed something that is not one JSON value (it starts "checking..."), so it was read as text for the model, not as JSON',
    ]);
    expect(readHookRun(run({ stdout: "branch: main\n" }), "SessionStart")).toMatchObject({ notices: [] });
  });
});
