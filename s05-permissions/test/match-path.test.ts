import { symlinkSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isRuleSyntaxError, parseRule } from "../src/index.ts";
import { pathForms, pathMatches } from "../src/rules/match-path.ts";
import { tempProject } from "./temp-project.ts";

function matches(rule: string, path: string, cwd: string, wide = false): boolean {
  const parsed = parseRule(rule);
  if (isRuleSyntaxError(parsed) || parsed.specifier.kind !== "path") throw new Error(rule);
  return pathMatches(parsed.specifier, pathForms(path, cwd), cwd, wide);
}

describe("pathMatches", () => {
  const cwd = "/work/project";

  it("follows gitignore: a name without a slash matches at any depth, one with a slash from the root", () => {
    expect(matches("Write(*.md)", "docs/a/b.md", cwd)).toBe(true);
    expect(matches("Edit(docs/**)", "docs/guide/x.txt", cwd)).toBe(true);
    expect(matches("Edit(docs/**)", "src/docs/x.txt", cwd)).toBe(false);
    expect(matches("Edit(/docs/**)", "docs/x.txt", cwd)).toBe(true);
  });

  it("reads // as the file system's root and ~/ as home; a relative rule stays inside the working directory", () => {
    expect(matches("Read(//etc/**)", "/etc/passwd", cwd)).toBe(true);
    expect(matches("Read(~/.ssh/**)", join(homedir(), ".ssh/id_ed25519"), cwd)).toBe(true);
    expect(matches("Read(*.key)", "/elsewhere/a.key", cwd)).toBe(false);
  });

  it("ignores case and counts a covered directory only for deny and ask rules", () => {
    expect(matches("Read(.env*)", ".ENV", cwd, true)).toBe(true);
    expect(matches("Read(.env*)", ".ENV", cwd, false)).toBe(false);
    expect(matches("Read(secrets/**)", "secrets", cwd, true)).toBe(true);
    expect(matches("Read(secrets/**)", "secrets", cwd, false)).toBe(false);
  });

  it("sees through a symbolic link", () => {
    const project = tempProject({ ".env": "KEY=1\n" });
    symlinkSync(join(project, ".env"), join(project, "notes.txt"));
    expect(matches("Read(.env)", "notes.txt", project)).toBe(true);
  });
});
