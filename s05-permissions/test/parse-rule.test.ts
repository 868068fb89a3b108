import { describe, expect, it } from "vitest";
import { parseRule } from "../src/index.ts";

describe("parseRule", () => {
  it("reads a tool alone as the whole tool", () => {
    expect(parseRule("Bash")).toEqual({ text: "Bash", tool: "Bash", specifier: { kind: "any" } });
    expect(parseRule("Bash(*)")).toMatchObject({ specifier: { kind: "any" } });
  });

  it("reads an MCP rule (s14) as a server's tools, or one of them, in Claude Code's form", () => {
    expect(parseRule("mcp__files")).toEqual({
      text: "mcp__files",
      tool: "mcp",
      specifier: { kind: "mcp", server: "files" },
    });
    expect(parseRule("mcp__files__*")).toMatchObject({ specifier: { kind: "mcp", server: "files", tool: undefined } });
    expect(parseRule("mcp__my_files__read_text")).toMatchObject({
      specifier: { kind: "mcp", server: "my_files", tool: "read_text" },
    });
    expect(parseRule("mcp__files(x)")).toMatchObject({ error: expect.stringMatching(/no parentheses/) });
    expect(parseRule("mcp__everything__get-tiny-image")).toMatchObject({ specifier: { tool: "get-tiny-image" } });
    expect(parseRule("mcp__")).toMatchObject({ error: expect.stringMatching(/no server/) });
  });

  it("reads Bash specifiers as exact, prefix or wildcard, words one space apart", () => {
    expect(parseRule("Bash(npm test)")).toMatchObject({ specifier: { match: "exact", pattern: "npm test" } });
    expect(parseRule("Bash(git  diff:*)")).toMatchObject({ specifier: { match: "prefix", pattern: "git diff" } });
    expect(parseRule("Bash(npm run * --x)")).toMatchObject({
      specifier: { match: "wildcard", pattern: "npm run * --x" },
    });
  });

  it("reads path specifiers with their root", () => {
    expect(parseRule("Read(src/**)")).toMatchObject({ specifier: { kind: "path", pattern: "src/**", root: "cwd" } });
    expect(parseRule("Edit(./docs/**)")).toMatchObject({ specifier: { pattern: "docs/**", root: "cwd" } });
    expect(parseRule("Edit(/docs/**)")).toMatchObject({ specifier: { pattern: "/docs/**", root: "cwd" } });
    expect(parseRule("Read(//etc/**)")).toMatchObject({ specifier: { pattern: "etc/**", root: "filesystem" } });
    expect(parseRule("Read(~/.ssh/**)")).toMatchObject({ specifier: { pattern: ".ssh/**", root: "home" } });
    expect(parseRule("Write(*.md)")).toMatchObject({ tool: "Write", specifier: { pattern: "*.md" } });
  });

  it.each([
    ["Bash(rm", "expected a tool name"],
    ["WebFetch(domain:x.com)", "unknown tool WebFetch"],
    ["bash(ls)", "write Bash, not bash"],
    ["Bash()", "is empty"],
    ["Bash(:*)", "nothing before :*"],
    ["Bash(git:* push)", ":* goes only at the end"],
    ["Bash(npm * :*)", "takes no other *"],
    ["Grep(src/**)", "Grep takes no specifier"],
    ["Read(!src/**)", "negated"],
    ["Read(../secrets/**)", "cannot climb out"],
  ])("says what is wrong with %s", (text, problem) => {
    expect(parseRule(text)).toEqual({ error: expect.stringContaining(problem) });
  });
});
