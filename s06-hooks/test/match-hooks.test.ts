import type { ToolCall } from "@harness/shared";
import { describe, expect, it } from "vitest";
import { preToolUseInput, sessionStartInput, stopInput, userPromptInput } from "../src/runner/hook-input.ts";
import { matcherProblem, matchesSubject, matchHooks } from "../src/runner/match-hooks.ts";
import { commandHook } from "./command-hook.ts";

const session = { sessionId: "s", cwd: "/project" };
const call = (name: string): ToolCall => ({ id: "toolu_1", name, input: {} });

describe("matchesSubject", () => {
  it.each(["", "*"])("matches every tool with %j", (matcher) => {
    expect(matchesSubject(matcher, "bash")).toBe(true);
    expect(matchesSubject(matcher, "anything_else")).toBe(true);
  });

  it("reads letters, digits, _ and | as exact names, not substrings", () => {
    expect(matchesSubject("bash", "bash")).toBe(true);
    expect(matchesSubject("edit_file|write_file", "write_file")).toBe(true);
    expect(matchesSubject("edit_file|write_file", "read_file")).toBe(false);
    expect(matchesSubject("file", "read_file")).toBe(false);
    expect(matchesSubject("bas", "bash")).toBe(false);
  });

  it("accepts Claude Code's tool names for the course's tools, and the other way round", () => {
    expect(matchesSubject("Bash", "bash")).toBe(true);
    expect(matchesSubject("Edit|Write", "edit_file")).toBe(true);
    expect(matchesSubject("Edit|Write", "write_file")).toBe(true);
    expect(matchesSubject("Edit|Write", "read_file")).toBe(false);
    expect(matchesSubject("Read", "read_file")).toBe(true);
    expect(matchesSubject("Glob|Grep", "grep")).toBe(true);
    expect(matchesSubject("bash", "Bash")).toBe(true);
  });

  it("is case-sensitive, as Claude Code is", () => {
    expect(matchesSubject("BASH", "bash")).toBe(false);
    expect(matchesSubject("edit", "edit_file")).toBe(false);
  });

  it("reads anything else as an unanchored regular expression, tried on both spellings", () => {
    expect(matchesSubject("_file$", "read_file")).toBe(true);
    expect(matchesSubject("_file$", "bash")).toBe(false);
    expect(matchesSubject("^(Edit|Write)$", "edit_file")).toBe(true);
    expect(matchesSubject("^(Edit|Write)$", "read_file")).toBe(false);
    expect(matchesSubject("mcp__.*", "mcp__memory__save")).toBe(true);
  });

  it("matches nothing with an invalid regular expression, and says why", () => {
    expect(matchesSubject("(unclosed", "bash")).toBe(false);
    expect(matcherProblem("(unclosed")).toMatch(/^the matcher "\(unclosed" is not a valid regular expression/);
    expect(matcherProblem("Edit|Write")).toBeUndefined();
    expect(matcherProblem("^Bash$")).toBeUndefined();
  });
});

describe("matchHooks", () => {
  const hooks = [
    commandHook("echo bash-hook", { matcher: "Bash" }),
    commandHook("echo file-hook", { matcher: "edit_file|write_file" }),
    commandHook("echo every-tool", { matcher: "" }),
    commandHook("echo after", { event: "PostToolUse", matcher: "bash" }),
    commandHook("echo prompt", { event: "UserPromptSubmit", matcher: "bash" }),
    commandHook("echo stop", { event: "Stop" }),
    commandHook("echo start", { event: "SessionStart", matcher: "startup" }),
    commandHook("echo resume-only", { event: "SessionStart", matcher: "resume" }),
  ];
  const commands = (input: Parameters<typeof matchHooks>[1]) => matchHooks(hooks, input).map((h) => h.command);

  it("selects the event's hooks whose matcher takes the tool, in config order", () => {
    expect(commands(preToolUseInput(session, call("bash")))).toEqual(["echo bash-hook", "echo every-tool"]);
    expect(commands(preToolUseInput(session, call("write_file")))).toEqual(["echo file-hook", "echo every-tool"]);
    expect(commands(preToolUseInput(session, call("glob")))).toEqual(["echo every-tool"]);
  });

  it("ignores the matcher of UserPromptSubmit and Stop, and tests SessionStart's against its source", () => {
    expect(commands(userPromptInput(session, "hi"))).toEqual(["echo prompt"]);
    expect(commands(stopInput(session, false))).toEqual(["echo stop"]);
    expect(commands(sessionStartInput(session))).toEqual(["echo start"]);
    expect(commands(sessionStartInput(session, "/tmp/s.jsonl"))).toEqual(["echo resume-only"]);
  });

  it("runs an identical command once per event, wherever it is configured", () => {
    const twice = [
      commandHook("echo same", { matcher: "bash", source: "project", file: ".harness/settings.json" }),
      commandHook("echo same", { matcher: "*" }),
    ];
    expect(matchHooks(twice, preToolUseInput(session, call("bash")))).toEqual([twice[0]]);
  });
});
