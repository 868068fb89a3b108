// biome-ignore-all lint/suspicious/noTemplateCurlyInString: shell lines, written as bash reads them
/**
 * The honest boundary's table: evasions that users of real harnesses reported against permission
 * rules, each with the decision this engine makes in default mode and in bypassPermissions, and
 * what stops it. `honest-boundary.test.ts` checks every row; the chapter text shows the table.
 *
 * - `engine`: denied in every mode; the parser sees the command or the file.
 * - `asks`: the engine cannot prove what it runs, so every mode asks, bypassPermissions included
 *   (with no terminal to ask on, that is a refusal): it fails closed.
 * - `os`: the engine sees the whole line, and a program it lets run (by an allow rule, or by
 *   bypassPermissions) does the forbidden thing itself; only an operating-system boundary (a
 *   sandbox, a container, another user) stops that.
 *
 * `issue` marks the rows of issue 25 (the shell engine fails closed); each is also run through the
 * real CLI, in default mode and in bypassPermissions (`fail-closed.test.ts`).
 */
import type { Behavior } from "../src/index.ts";

export type StoppedBy = "engine" | "asks" | "os";

export interface Evasion {
  what: string;
  line: string;
  default: Behavior;
  bypass: Behavior;
  stoppedBy: StoppedBy;
  /** How the chapter text shows the line, when it cannot show it as it is (a newline, 50,000 characters). */
  shown?: string;
  /** Set on the rows issue 25 added: each is also run through the CLI. */
  issue?: 25;
}

/** The line as the text's table shows it: newlines as ⏎. */
export function shownLine(evasion: Evasion): string {
  return evasion.shown ?? evasion.line.replaceAll("\n", " ⏎ ");
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
  bypass: "ask",
  stoppedBy: "asks",
});
const runs = (what: string, line: string, byDefault: Behavior = "allow"): Evasion => ({
  what,
  line,
  default: byDefault,
  bypass: "allow",
  stoppedBy: "os",
});
/** A row of issue 25: refused in every mode (`engine`) or asked about in every mode (`asks`). */
const closed = (row: Evasion, shown?: string): Evasion => ({ ...row, issue: 25, ...(shown ? { shown } : {}) });

/** A value that bash evaluates as arithmetic runs the command in its subscript. */
const HOSTILE = "x='a[$(rm -rf build)]';";

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
  runs("a script file written, then run", "echo 'rm -rf build' > clean.sh && bash clean.sh", "ask"),
  runs("a synonym flag no rule names (-f for --force)", "git push -f origin"),
  runs("a denied file named at run time", "cat \"$(printf '.%sv' en)\""),
  runs("a denied file held in a variable", "F=.env; cat $F"),
  runs("python -c opening the file itself", "python3 -c \"print(open('.env').read())\""),
  runs("python -c deleting", "python3 -c 'import shutil; shutil.rmtree(\"build\")'"),
  runs("a directory read whole (tar)", "tar czf /tmp/out.tgz ."),
  runs("a directory read whole (grep -r)", "grep -r KEY ."),
  runs("an allowed program that runs commands (git alias)", "git -c alias.x='!rm -rf build' x"),
  runs("find deleting by itself", "find build -delete"),
  // issue 25: expansions that run a command
  closed(asks("arithmetic (( )) on a variable holding a[$(...)]", `${HOSTILE} (( x ))`)),
  closed(asks("$(( )) on such a variable", `${HOSTILE} echo $(( x ))`)),
  closed(asks("let on such a variable", `${HOSTILE} let x`)),
  closed(asks("[[ -eq ]] on such a variable", `${HOSTILE} [[ $x -eq 1 ]]`)),
  closed(asks("an array subscript holding such a variable", `${HOSTILE} echo \${b[x]}`)),
  closed(asks("a substring offset: arithmetic too", `${HOSTILE} echo \${x:0:x}`)),
  closed(asks("an array element assigned at such a subscript", `${HOSTILE} b[x]=1`)),
  closed(asks("a subscript in an array literal", `${HOSTILE} b=([x]=1)`)),
  closed(asks("declare -i: every assignment is arithmetic", `${HOSTILE} declare -i n=x`)),
  closed(asks("a nameref to such a name", `${HOSTILE} declare -n r=$x; echo $r`)),
  closed(asks("printf -v into such a name", `${HOSTILE} printf -v "$x" 1`)),
  closed(asks("read into such a name", `${HOSTILE} read "$x" <<< 1`)),
  closed(asks("[[ -v ]] on such a name", `${HOSTILE} [[ -v $x ]]`)),
  closed(asks("indirect expansion ${!x}", `${HOSTILE} echo \${!x}`)),
  closed(asks("prompt expansion ${x@P}", "x='$(rm -rf build)'; echo ${x@P}")),
  closed(asks("compgen -W expands its word list", "compgen -W '$(rm -rf build)' x")),
  // issue 25: what the parser reads wrong, or cannot read
  closed(asks("backticks in a here-document", "cat <<EOF\n`rm -rf build`\nEOF")),
  closed(asks("$(...) in a here-document with <<- and tabs", "cat <<-EOF\n\t$(rm -rf build)\n\tEOF")),
  closed(asks("backticks inside backticks", "echo `echo \\`rm -rf build\\``")),
  closed(asks("backticks inside ${...}", "echo ${x-`rm -rf build`}")),
  closed(asks("time before a group (a construct it does not model)", "time { rm -rf build; }")),
  closed(asks("coproc (a construct it does not model)", "coproc { rm -rf build; }")),
  closed(asks("for with braces for do and done (a parse error)", "for x in a; { rm -rf build; }")),
  closed(
    asks("a line longer than the engine reads", `rm -rf build;${" ".repeat(50_000)}`),
    "rm -rf build; (then 50,000 spaces)",
  ),
  closed(asks("a line continuation inside the command name", "r\\\nm -rf build")),
  closed(asks("brace expansion as the command", "{rm,-rf,build}")),
  closed(asks("brace expansion in the command name", "r{m,} -rf build")),
  closed(asks("a glob as the command name", "/bin/r[m] -rf build")),
  closed(asks("a wrapper given its command at run time", "env $CMD -rf build")),
  // issue 25: names made to run something else
  closed(asks("an alias", "shopt -s expand_aliases\nalias x='rm -rf build'\nx")),
  closed(asks("an alias through BASH_ALIASES", "shopt -s expand_aliases; BASH_ALIASES[x]='rm -rf build'\nx")),
  closed(asks("hash -p: a name for another program", "hash -p /bin/rm x; x -rf build")),
  closed(asks("BASH_CMDS: the same as an assignment", "BASH_CMDS[x]=/bin/rm; x -rf build")),
  // issue 25: builtins whose argument is a script
  closed(rm("trap with a literal script", "trap 'rm -rf build' EXIT")),
  closed(asks("trap with a script in a variable", 'trap "$CLEAN" EXIT')),
  closed(asks("source of a script file", "source clean.txt")),
  closed(asks(". of a script file", ". ./clean.txt")),
  closed(asks("mapfile -C with a callback", "mapfile -C 'rm -rf build #' -c 1 < clean.txt")),
  closed(asks("compgen -C with a command", "compgen -C 'rm -rf build' x")),
  closed(asks("complete -C with a command", "complete -C 'rm -rf build' git")),
  closed(asks("bind -x with a command", "bind -x '\"\\C-x\": rm -rf build'")),
  closed(asks("fc running the history", "fc -s rm")),
  closed(asks("enable -f loading a builtin", "enable -f ./clean.so clean")),
  closed(asks("jobs -x running a command", "jobs -x rm -rf build")),
  // issue 25: global options before the subcommand
  closed(rm("git -C before the subcommand", "git -C . push --force origin main")),
  closed(rm("git -c before the subcommand", "git -c color.ui=never push --force origin main")),
  closed(rm("git --no-pager before the subcommand", "git --no-pager push --force origin main")),
  closed(rm("git --git-dir= before the subcommand", "git --git-dir=.git push --force origin main")),
  closed(rm("git --work-tree DIR before the subcommand", "git --work-tree . push --force origin main")),
  closed(rm("git -P --literal-pathspecs before the subcommand", "git -P --literal-pathspecs push --force origin main")),
  closed(rm("npm --prefix before the subcommand", "npm --prefix . publish")),
  closed(rm("docker -H before the subcommand", "docker -H unix:///var/run/docker.sock rm -f web")),
  // issue 25: secrets written
  closed(rm("a denied file overwritten through a redirection", "echo KEY=2 > .env")),
];
