import { describe, expect, it } from "vitest";
import {
  hookToolName,
  inputFromHook,
  postToolUseInput,
  preToolUseInput,
  sessionStartInput,
  stopInput,
  toolInputForHooks,
  userPromptInput,
} from "../src/runner/hook-input.ts";

const session = { sessionId: "session-7", cwd: "/work/project" };

describe("hook inputs", () => {
  it("carry Claude Code's field names for every event", () => {
    const common = { session_id: "session-7", cwd: "/work/project" };
    const call = { id: "toolu_9", name: "bash", input: { command: "ls" } };
    expect(sessionStartInput(session)).toEqual({ ...common, hook_event_name: "SessionStart", source: "startup" });
    expect(sessionStartInput(session, "/home/u/.harness/projects/p/sessions/s.jsonl")).toEqual({
      ...common,
      hook_event_name: "SessionStart",
      source: "resume",
      transcript_path: "/home/u/.harness/projects/p/sessions/s.jsonl",
    });
    expect(userPromptInput(session, "hi")).toEqual({ ...common, hook_event_name: "UserPromptSubmit", prompt: "hi" });
    expect(preToolUseInput(session, call)).toEqual({
      ...common,
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command: "ls" },
      tool_use_id: "toolu_9",
    });
    expect(postToolUseInput(session, call, { content: "a\n[exit code 0]", isError: false })).toEqual({
      ...common,
      hook_event_name: "PostToolUse",
      tool_name: "Bash",
      tool_input: { command: "ls" },
      tool_use_id: "toolu_9",
      tool_response: { content: "a\n[exit code 0]", is_error: false },
    });
    expect(stopInput(session, true)).toEqual({ ...common, hook_event_name: "Stop", stop_hook_active: true });
  });
});

describe("toolInputForHooks", () => {
  it("adds file_path, absolute, beside a relative path", () => {
    expect(toolInputForHooks({ path: "src/a.ts", content: "x" }, "/work/project")).toEqual({
      path: "src/a.ts",
      content: "x",
      file_path: "/work/project/src/a.ts",
    });
    expect(toolInputForHooks({ path: "/etc/hosts" }, "/work/project")).toEqual({
      path: "/etc/hosts",
      file_path: "/etc/hosts",
    });
  });

  it("never changes what the model wrote", () => {
    expect(toolInputForHooks({ command: "ls" }, "/p")).toEqual({ command: "ls" });
    expect(toolInputForHooks({ path: "a", file_path: "model's own" }, "/p")).toEqual({
      path: "a",
      file_path: "model's own",
    });
    expect(toolInputForHooks({ path: 3 }, "/p")).toEqual({ path: 3 });
    expect(toolInputForHooks(null, "/p")).toEqual({});
  });
});

describe("hookToolName", () => {
  it("is Claude Code's name for the six tools that have one, the course's for any other", () => {
    expect(["bash", "read_file", "write_file", "edit_file", "glob", "grep", "todo_write"].map(hookToolName)).toEqual([
      "Bash",
      "Read",
      "Write",
      "Edit",
      "Glob",
      "Grep",
      "todo_write",
    ]);
  });
});

describe("inputFromHook", () => {
  const read = { id: "toolu_1", name: "read_file", input: { path: "src/a.ts" } };

  it("takes a changed file_path as the path, and drops the one it added", () => {
    expect(inputFromHook({ path: "src/a.ts", file_path: "/p/src/b.ts" }, read, "/p")).toEqual({ path: "/p/src/b.ts" });
    expect(inputFromHook({ path: "src/c.ts", file_path: "/p/src/a.ts" }, read, "/p")).toEqual({ path: "src/c.ts" });
  });

  it("keeps every other field as the hook gave it, and leaves out what it left out", () => {
    const bash = { id: "toolu_2", name: "bash", input: { command: "ls" } };
    expect(inputFromHook({ command: "ls -la", file_path: "x" }, bash, "/p")).toEqual({
      command: "ls -la",
      file_path: "x",
    });
    expect(inputFromHook({ cmd: "ls" }, bash, "/p")).toEqual({ cmd: "ls" });
  });
});
