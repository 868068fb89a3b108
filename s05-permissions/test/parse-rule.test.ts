import { describe, expect, it } from "vitest";
import { parseRule } from "../src/index.ts";

describe("parseRule", () => {
  it("reads a tool alone as the whole tool", () => {
    expect(parseRule("Bash")).toEqual({ text: "Bash", tool: "Bash", specifier: { kind: "any" } });
    expect(parseRule("Bash(*)")).toMatchObject({ specifier: { kind: "any" } });
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
