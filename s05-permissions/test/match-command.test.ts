import { describe, expect, it } from "vitest";
import { isRuleSyntaxError, parseRule } from "../src/index.ts";
import { commandMatches } from "../src/shell/match-command.ts";

function matches(rule: string, command: string, loose = false): boolean {
  const parsed = parseRule(rule);
  if (isRuleSyntaxError(parsed) || parsed.specifier.kind !== "command") throw new Error(rule);
  return commandMatches(parsed.specifier, command.split(" "), loose);
}

describe("commandMatches", () => {
  it("matches an exact rule exactly", () => {
    expect(matches("Bash(npm test)", "npm test")).toBe(true);
    expect(matches("Bash(npm test)", "npm test --watch")).toBe(false);
  });

  it("matches a prefix rule on word boundaries", () => {
    expect(matches("Bash(git diff:*)", "git diff")).toBe(true);
    expect(matches("Bash(git diff:*)", "git diff HEAD~1")).toBe(true);
    expect(matches("Bash(git diff:*)", "git difftool")).toBe(false);
  });

  it("matches * as any run of characters, a final ' *' matching nothing too", () => {
    expect(matches("Bash(npm run * --silent)", "npm run build --silent")).toBe(true);
    expect(matches("Bash(ls *)", "ls")).toBe(true);
    expect(matches("Bash(ls *)", "lsof")).toBe(false);
  });

  it("names a program reached by a path; an allow rule only in the system's directories", () => {
    expect(matches("Bash(rm:*)", "/bin/rm -rf x", true)).toBe(true);
    expect(matches("Bash(rm:*)", "./rm x", true)).toBe(true);
    expect(matches("Bash(git status)", "/usr/bin/git status")).toBe(true);
    expect(matches("Bash(git status)", "./git status")).toBe(false);
    expect(matches("Bash(./deploy.sh)", "./deploy.sh")).toBe(true);
  });

  it("matches deny and ask rules flag by flag, in any order and grouping", () => {
    for (const command of ["rm -fr /", "rm -r -f /", "rm -rfv /", "rm -f -r -- /"]) {
      expect(matches("Bash(rm -rf:*)", command, true), command).toBe(true);
      expect(matches("Bash(rm -rf:*)", command, false), command).toBe(false);
    }
    expect(matches("Bash(git push --force:*)", "git push origin --force", true)).toBe(true);
    expect(matches("Bash(git push:*)", "git --no-pager push", true)).toBe(true);
    expect(matches("Bash(git push:*)", "git log push", true)).toBe(false);
    expect(matches("Bash(rm -rf:*)", "rm --recursive --force /", true)).toBe(false); // synonyms: no rule can know them
  });
});
