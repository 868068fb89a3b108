/**
 * The honest boundary's table: evasions that users of real harnesses reported against permission
 * rules, each with the decision this engine makes in default mode and in bypassPermissions, and
 * what stops it. `honest-boundary.test.ts` checks every row; the chapter text shows the table.
 *
 * - `engine`: denied in every mode; the parser sees the command or the file.
 * - `asks`: the parser cannot see through it, so default mode asks; bypassPermissions runs it,
 *   and only an operating-system boundary (a sandbox, a container, another user) stops it there.
 * - `os`: an allow rule lets a program run, and the program does the forbidden thing itself;
 *   only an operating-system boundary stops it, in every mode.
 */
import type { Behavior } from "../src/index.ts";

export type StoppedBy = "engine" | "asks" | "os";

export interface Evasion {
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
