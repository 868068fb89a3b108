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

  it("finds the subcommand of a deny or ask rule behind any options before it, an allow rule's only as written", () => {
    for (const command of [
      "git -C . push",
      "git -c user.name=x push origin",
      "git --git-dir=.git push",
      "git --work-tree . -P --no-pager push --force",
      "git -- push",
    ]) {
      expect(matches("Bash(git push:*)", command, true), command).toBe(true);
      expect(matches("Bash(git push:*)", command, false), command).toBe(false);
    }
    expect(matches("Bash(npm publish:*)", "npm --prefix . publish", true)).toBe(true);
    expect(matches("Bash(docker rm:*)", "docker -H tcp://host:2375 rm -f web", true)).toBe(true);
    expect(matches("Bash(git push --force:*)", "git -C . push origin --force", true)).toBe(true);
    // a word that is not an option ends the search: the subcommand is log, push its argument
    expect(matches("Bash(git push:*)", "git log --grep push", true)).toBe(false);
    expect(matches("Bash(git push:*)", "git -c a=b commit -m push", true)).toBe(false);
    // both readings of -C: a directory named push is read as the subcommand too (a deny too many)
    expect(matches("Bash(git push:*)", "git -C push status", true)).toBe(true);
  });
});
