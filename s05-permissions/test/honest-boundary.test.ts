/**
 * The honest boundary: evasions that users of real harnesses reported against permission rules,
 * each with the decision this engine makes in default mode and in bypassPermissions.
 *
 * - `engine`: denied in every mode; the parser sees the command or the file.
 * - `asks`: the parser cannot see through it, so default mode asks; bypassPermissions runs it,
 *   and only an operating-system boundary (a sandbox, a container, another user) stops it there.
 * - `os`: an allow rule lets a program run, and the program does the forbidden thing itself;
 *   only an operating-system boundary stops it, in every mode.
 *
 * The settings are a plausible user's: common programs allowed, `rm` and force-pushes denied.
 * Reports: anthropics/claude-code #15586, #15763 (chained), #38119 (newlines and comments), #92542
 * (wrappers), #31558 (env prefix), #18613 (reordered flags), #70369 (groups, process substitution,
 * shell writes), #6002 (a denied .env read through cat).
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type Behavior, decide, loadPermissionSettings } from "../src/index.ts";
import { bash } from "./temp-project.ts";

type StoppedBy = "engine" | "asks" | "os";

interface Evasion {
  what: string;
  line: string;
  default: Behavior;
  bypass: Behavior;
  stoppedBy: StoppedBy;
}

const rm = (what: string, line: string): Evasion => ({
  what,
  line,
  default: "deny",
  bypass: "deny",
  stoppedBy: "engine",
});
const asks = (what: string, line: string): Evasion => ({
  what,
  line,
  default: "ask",
  bypass: "allow",
  stoppedBy: "asks",
});
const runs = (what: string, line: string): Evasion => ({
  what,
  line,
  default: "allow",
  bypass: "allow",
  stoppedBy: "os",
});

/** The table. */
export const EVASIONS: readonly Evasion[] = [
  rm("chained with &&", "git status && rm -rf build"),
  rm("chained with ;", "git status; rm -rf build"),
  rm("after a pipe", "git ls-files | rm -rf build"),
  rm("on a later line, after comments", "# clean up\n# then report\necho start\nrm -rf build\necho done"),
  rm("in a group or a subshell", "{ rm -rf build; } ; (rm -rf build)"),
  rm("inside $(...)", 'echo "$(rm -rf build)"'),
  rm("inside backticks", "echo `rm -rf build`"),
  rm("inside a process substitution", "cat <(rm -rf build)"),
  rm("through env", "env rm -rf build"),
  rm("through command", "command rm -rf build"),
  rm("by its path", "/bin/rm -rf build"),
  rm("through timeout and nohup", "timeout 5 nohup rm -rf build"),
  rm("after an environment prefix", "FOO=1 rm -rf build"),
  rm("through xargs", "find . -name '*.tmp' | xargs rm"),
  rm("through find -exec", "find . -name '*.tmp' -exec rm {} \\;"),
  rm("in sh -c", "sh -c 'rm -rf build'"),
  rm("in bash -c", 'bash -c "rm -rf build"'),
  rm("in eval with a literal script", "eval 'rm -rf build'"),
  rm("in a here-document fed to bash", "bash <<'EOF'\nrm -rf build\nEOF"),
  rm("split by quotes", "r''m -rf build"),
  rm("escaped", "\\rm -rf build"),
  rm("quoted whole", '"rm" -rf build'),
  rm("as an ANSI-C string", "$'\\x72m' -rf build"),
  rm("with long flags (the rule names the program)", "rm --recursive --force build"),
  rm("reordered flags against Bash(git push --force:*)", "git push origin --force"),
  rm("a denied file read through cat", "cat .env"),
  rm("a denied file read through a redirection", "cat < .env"),
  rm("a denied file read through grep", "grep KEY .env"),
  rm("a denied file named by a glob", "cat .e*"),
  rm("a denied file in a git object name", "git show HEAD:.env"),
  rm("a denied file under a symbolic link", "cat notes.txt"),
  rm("a denied file named inside $(...)", "cat $(echo .env)"),
  asks("the program in a variable", "$CMD -rf build"),
  asks("the program computed by $(...)", "$(echo rm) -rf build"),
  asks("the program computed by backticks", "`echo rm` -rf build"),
  asks("eval of a variable", 'eval "$CLEAN"'),
  asks("a script piped into a shell", "cat clean.txt | sh"),
  asks("PATH changed before an allowed command", "PATH=.:$PATH git status"),
  asks("a script file written, then run", "echo 'rm -rf build' > clean.sh && bash clean.sh"),
  runs("a synonym flag no rule names (-f for --force)", "git push -f origin"),
  runs("a denied file named at run time", "cat \"$(printf '.%sv' en)\""),
  runs("a denied file held in a variable", "F=.env; cat $F"),
  runs("python -c opening the file itself", "python3 -c \"print(open('.env').read())\""),
  runs("python -c deleting", "python3 -c 'import shutil; shutil.rmtree(\"build\")'"),
  runs("a directory read whole (tar)", "tar czf /tmp/out.tgz ."),
  runs("a directory read whole (grep -r)", "grep -r KEY ."),
  runs("an allowed program that runs commands (git alias)", "git -c alias.x='!rm -rf build' x"),
  runs("find deleting by itself", "find build -delete"),
];

describe("the honest boundary", () => {
  const permissions = {
    allow: [
      "Bash(git:*)",
      "Bash(echo:*)",
      "Bash(printf:*)",
      "Bash(cat:*)",
      "Bash(grep:*)",
      "Bash(find:*)",
      "Bash(xargs:*)",
      "Bash(python3:*)",
      "Bash(tar:*)",
    ],
    deny: ["Bash(rm:*)", "Bash(git push --force:*)"],
  };
  // one project for the whole table: its files must outlive each test
  const cwd = mkdtempSync(join(tmpdir(), "s05-boundary-"));
  afterAll(() => rmSync(cwd, { recursive: true, force: true }));
  mkdirSync(join(cwd, ".harness"));
  mkdirSync(join(cwd, "build"));
  writeFileSync(join(cwd, ".harness/settings.json"), JSON.stringify({ permissions }));
  writeFileSync(join(cwd, ".env"), "KEY=1\n");
  writeFileSync(join(cwd, "clean.txt"), "rm -rf build\n");
  symlinkSync(join(cwd, ".env"), join(cwd, "notes.txt"));
  const settings = loadPermissionSettings(cwd);
  if (settings instanceof Error) throw settings;

  it.each(EVASIONS.map((e) => [e.what, e] as const))("%s", (_what, evasion) => {
    expect({
      default: decide(bash(evasion.line), settings, "default", cwd).behavior,
      bypass: decide(bash(evasion.line), settings, "bypassPermissions", cwd).behavior,
    }).toEqual({ default: evasion.default, bypass: evasion.bypass });
  });

  it("says which evasions only an operating-system boundary stops", () => {
    const counts = { engine: 0, asks: 0, os: 0 };
    for (const evasion of EVASIONS) counts[evasion.stoppedBy]++;
    // the table's own bookkeeping: a row's label agrees with its decisions
    for (const evasion of EVASIONS) {
      const label: StoppedBy = evasion.bypass === "deny" ? "engine" : evasion.default === "ask" ? "asks" : "os";
      expect(label, evasion.what).toBe(evasion.stoppedBy);
    }
    expect(counts).toEqual({ engine: 32, asks: 7, os: 9 });
  });
});
