// biome-ignore-all lint/suspicious/noTemplateCurlyInString: shell lines, written as bash reads them
/**
 * The shell engine against real bash. Every line of HOSTILE makes bash create the file `pwned`
 * (this test runs each in a fresh directory and checks it does), in ways users and attackers
 * found: chains, wrappers, quoting, here-documents, arithmetic on a hostile value, `${x@P}`,
 * aliases, `trap`, `source`, keywords the parser reads as commands. With `touch` and `pwned`
 * denied, none may be allowed, in bypassPermissions least of all: each is denied (the engine sees
 * `touch` or the write) or asks (it cannot prove what runs).
 *
 * BENIGN is what a model writes every day: it must stay allowed under rules that allow its
 * programs, or failing closed would only teach users to answer yes. FILE_SCRIPTS is the boundary
 * drawn on purpose: a shell given a script file is a program like any other (as `python3 x.py`
 * is), decided by the rule for it; bypassPermissions runs it.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decide, loadPermissionSettings } from "../src/index.ts";
import { bash } from "./temp-project.ts";

const HOSTILE: readonly string[] = [
  "f='-v'; printf \"$f\" 'a[$(touch pwned)]' 1",
  'echo "`touch pwned`"',
  "cat <<EOF\n`touch pwned`\nEOF",
  "cat <<-EOF\n\t$(touch pwned)\n\tEOF",
  "echo `echo \\`touch pwned\\``",
  "for x in a; { touch pwned; }",
  "x='a[$(touch pwned)]'; (( x ))",
  "time { touch pwned; }",
  "coproc { touch pwned; }; sleep 0.2",
  "! touch pwned",
  "if touch pwned; then :; fi",
  "while touch pwned; false; do :; done",
  "until touch pwned; do :; done",
  "case a in a) touch pwned;; esac",
  "[[ $(touch pwned) ]]",
  '[ "$(touch pwned)" ]',
  "echo ${x:-$(touch pwned)}",
  'echo "$(touch pwned)"',
  "exec touch pwned",
  "command -p touch pwned",
  "builtin eval 'touch pwned'",
  "x=$(touch pwned)",
  "export x=$(touch pwned)",
  "declare y=$(touch pwned)",
  'declare -a "a=(\\$(touch pwned))"',
  "f=touch; $f pwned",
  '"$(echo touch)" pwned',
  "t\\\nouch pwned",
  "tou''ch pwned",
  "IFS=,; cmd=touch,pwned; $cmd",
  "printf -v cmd 'touch pwned'; $cmd",
  'set -- touch pwned; "$@"',
  "{ touch pwned; }",
  "(touch pwned)",
  "cat < <(touch pwned)",
  ": $(touch pwned)",
  "a=1; case $a in $(touch pwned)) ;; esac",
  "for x in $(touch pwned); do :; done",
  "select x in $(touch pwned); do break; done < /dev/null",
  "for ((i=$(touch pwned 2>/dev/null; echo 0); i<1; i++)); do :; done",
  "echo $(( $(touch pwned; echo 1) ))",
  "function f { touch pwned; }; f",
  "touch pwned |& cat",
  'cat <<< "$(touch pwned)"',
  "xargs -I{} touch {} <<< pwned",
  'bash -c "t$(echo ouch) pwned"',
  "find . -maxdepth 0 -exec touch pwned \\;",
  "echo a | while read x; do touch pwned; done",
  "cat clean.txt | bash",
  "bash < clean.txt",
  "source clean.txt",
  'eval "$(cat clean.txt)"',
  "trap 'touch pwned' EXIT",
  "$(printf 'touch pwned')",
  "exec 3<>pwned",
  ": > pwned",
  ">pwned",
  "touch${IFS}pwned",
  "{touch,pwned}",
  "X=pwned; touch $X",
  "a[$(touch pwned)]=1",
  "echo ${a[$(touch pwned)]}",
  "echo $[$(touch pwned)]",
  "read -r x <<< 'a[$(touch pwned)]'; (( x ))",
  "mapfile -t arr <<< 'a[$(touch pwned)]'; (( arr[0] ))",
  "x='a[$(touch pwned)]'; echo $(( x ))",
  "x='a[$(touch pwned)]'; y=(1); echo ${y[x]}",
  "x='a[$(touch pwned)]'; [[ x -lt 1 ]]",
  "x='a[$(touch pwned)]'; [[ -v $x ]]",
  "x='a[$(touch pwned)]'; [ -v \"$x\" ]",
  "x='a[$(touch pwned)]'; printf -v \"$x\" 1",
  "x='a[$(touch pwned)]'; read \"$x\" <<< 1",
  "x='a[$(touch pwned)]'; declare -i n; n=x",
  "x='a[$(touch pwned)]'; declare -n r=$x; echo $r",
  "x='a[$(touch pwned)]'; b=([x]=1)",
  "x='a[$(touch pwned)]'; b[x]=1",
  "x='a[$(touch pwned)]'; echo ${!x}",
  "x='$(touch pwned)'; echo ${x@P}",
  "x='a[$(touch pwned)]'; echo ${x:0:x}",
  "x='a[$(touch pwned)]'; for ((i=x; i<0; i++)); do :; done",
  "x='a[$(touch pwned)]'; let y=x",
  "x='a[$(touch pwned)]'; declare \"$x\"=1",
  "x='a[$(touch pwned)]'; declare -i m=x",
  "x='a[$(touch pwned)]'; case 1 in $((x)) ) ;; esac",
  "x='a[$(touch pwned)]'; : $[x]",
  "x='a[$(touch pwned)]'; printf '%s' \"${y[x]}\"",
  "x='a[$(touch pwned)]'; arr=(1); echo \"${arr[@]:x}\"",
  "x='a[$(touch pwned)]'; echo ${y[x]:-z}",
  "x='a[$(touch pwned)]'; [[ \"$x\" -gt 0 ]]",
  "x='a[$(touch pwned)]'; y=\"$x\"; (( y ))",
  "x='a[$(touch pwned)]'; declare -A A; A[k]=1; y=(1); : \"${y[x]}\"",
  "x='a[$(touch pwned)]'; y=(1); y+=([x]=2)",
  "x='a[$(touch pwned)]'; local y 2>/dev/null; declare y[x]=1",
  "x='a[$(touch pwned)]'; (( y = x ))",
  "x='a[$(touch pwned)]'; echo $(( $x ))",
  "x='a[$(touch pwned)]'; [[ $x -eq $x ]]",
  "shopt -s expand_aliases\nalias t='touch pwned'\nt",
  "BASH_ALIASES[t]='touch pwned'; shopt -s expand_aliases\nt",
  "BASH_CMDS[ls]=/usr/bin/touch; ls pwned",
  "hash -p /usr/bin/touch ls; ls pwned",
  "compgen -C 'touch pwned' x",
  "mapfile -C 'touch pwned #' -c 1 < clean.txt",
  "readarray -C 'touch pwned #' -c 1 < clean.txt",
  "X='touch pwned'; trap \"$X\" EXIT",
  ". ./clean.txt",
  "r{m,x} -f nothing; touc{h,} pwned",
  "/usr/bin/touc[h] pwned",
  "/usr/bin/touc? pwned",
  "/usr/*/touch pwned",
  "t\\\no\\\nu\\\nc\\\nh pwned",
  "BASH_ENV=clean.txt bash -c :",
  "env BASH_ENV=clean.txt bash -c :",
  "PS4='$(touch pwned)'; set -x; : 2>/dev/null",
  "echo $((`touch pwned` 1))",
  "echo ${x-`touch pwned`}",
  "[[ a =~ $(touch pwned) ]]",
  "case `touch pwned` in *) ;; esac",
  "x=( $(touch pwned) )",
  "declare -A A=([k]=$(touch pwned))",
  'printf \'%s\' "${x:-"$(touch pwned)"}"',
  "cat <<EOF\n${x:-$(touch pwned)}\nEOF",
  "cat <<EOF\n$(( $(touch pwned) ))\nEOF",
  "cat <<EOF; touch pwned\nhi\nEOF",
  "cat <<EOF && touch pwned\nhi\nEOF",
  "f() { cat; } <<EOF\n$(touch pwned)\nEOF\nf",
  'cat <<"EOF" | bash\ntouch pwned\nEOF',
  "bash <<EOF\ntouch pwned\nEOF",
  "bash <<EOF\n$(echo touch) pwned\nEOF",
  "sh -c \"$(printf 'touch pwned')\"",
  "cd . && touch pwned",
  'echo $"`touch pwned`"',
  'echo "a`touch pwned`b"',
  "echo $(echo `touch pwned`)",
  'echo "$(echo "`touch pwned`")"',
  "x=1; x+=$(touch pwned)",
  "cat <(touch pwned) >/dev/null",
  "[[ -f $(touch pwned) ]]",
  'test -n "$(touch pwned)"',
  "(( $(touch pwned; echo 1) ))",
  "y=(1); echo ${y[$(touch pwned)]}",
  'echo "${x:=`touch pwned`}"',
  "touch pwned # comment \\",
  "# comment \\\ntouch pwned",
  "echo a \\\n; touch pwned",
  "echo a;\\\ntouch pwned",
  "echo a&&\\\ntouch pwned",
  "echo $\\\n(touch pwned)",
  "$'touch' pwned",
  '$"touch" pwned',
  '"tou"ch pwned',
  "\\t\\o\\u\\c\\h pwned",
  "command eval 'touch pwned'",
  "exec -a x touch pwned",
  "builtin source clean.txt",
  "command . ./clean.txt",
  "x='a[$(touch pwned)]'; printf -v\"$x\" 1",
  "x='a[$(touch pwned)]'; builtin read \"$x\" <<< 1",
  "x='a[$(touch pwned)]'; command printf -v \"$x\" 1",
  "x='a[$(touch pwned)]'; builtin let x",
  "x='a[$(touch pwned)]'; command declare -i n=x",
  "x='a[$(touch pwned)]'; eval '(( x ))'",
  "x='a[$(touch pwned)]'; sh -c 'true'; bash -c '(( x ))' ; export x; bash -c '(( x ))'",
  "x='a[$(touch pwned)]'; f() { (( x )); }; f",
  "x='a[$(touch pwned)]'; i=0; (( i += x ))",
  "x='a[$(touch pwned)]'; i=0; i=$(( i + x ))",
  "x='a[$(touch pwned)]'; y=x; z=$((y))",
  "x='a[$(touch pwned)]'; x=1; x='a[$(touch pwned)]'; (( x ))",
  "i=0; x='a[$(touch pwned)]'; for ((i=0; i<x; i++)); do :; done",
  "x='a[$(touch pwned)]'; a=(1); (( a[0] + ${#x} )) ; (( a[x] ))",
  "x='a[$(touch pwned)]'; echo \"$(( x ))\"",
  "x='a[$(touch pwned)]'; cat <<EOF\n$(( x ))\nEOF",
  "x='a[$(touch pwned)]'; case $(( x )) in *) ;; esac",
  "x='a[$(touch pwned)]'; [[ $(( x )) == 1 ]]",
  "x='a[$(touch pwned)]'; echo ${a[x]-}",
  'x=\'a[$(touch pwned)]\'; echo "${x:0:${#x}}"; echo "${x: x}"',
  "x='a[$(touch pwned)]'; printf -v y '%s' \"$x\"; (( y ))",
  "x='a[$(touch pwned)]'; for y in \"$x\"; do (( y )); done",
  "x='a[$(touch pwned)]'; : ${y:=$x}; (( y ))",
  "x='a[$(touch pwned)]'; y+=$x; (( y ))",
  "x='a[$(touch pwned)]'; declare y=$x; (( y ))",
  "x='a[$(touch pwned)]'; local -n r=x 2>/dev/null; declare -n r=x; (( r ))",
  "x='a[$(touch pwned)]'; IFS= read -r y <<< \"$x\"; (( y ))",
  "x='a[$(touch pwned)]'; mapfile -t y <<< \"$x\"; (( y ))",
  "x='a[$(touch pwned)]'; set -- \"$x\"; (( $1 ))",
  "x='a[$(touch pwned)]'; bash='a[$(touch pwned)]'; (( $0 ))",
  "x='a[$(touch pwned)]'; declare -A m; m[k]=$x; (( m[k] ))",
  "x='a[$(touch pwned)]'; export y=$x; (( y ))",
  "x='a[$(touch pwned)]'; readonly y=$x; (( y ))",
  "x='a[$(touch pwned)]'; [[ x -eq 0 || x -ne 0 ]]",
  "x='a[$(touch pwned)]'; [[ ! x -eq 0 ]]",
  "x='a[$(touch pwned)]'; [[ ( x -eq 0 ) ]]",
  "x='a[$(touch pwned)]'; test x -eq 0 2>/dev/null; [[ 1 -le x ]]",
  "x='$(touch pwned)'; y=${x@P}",
  "x='$(touch pwned)'; cat <<< ${x@P}",
  "x='$(touch pwned)'; printf '%s' \"${x@P}\"",
  "x='$(touch pwned)'; : \"${x@P}\"",
  "x='a[$(touch pwned)]'; : \"${!x}\"",
  "x='a[$(touch pwned)]'; y=${!x}",
  "x='a[$(touch pwned)]'; : ${!x-}",
  "touch${x:-} pwned",
  "touc${x:-h} pwned",
  '"touc"h pwned',
  "to\\uch pwned",
  "tou\\\nch pwned",
  "echo hi; tou\\\nch pwned",
  "if true; then tou\\\nch pwned; fi",
  "{ tou\\\nch pwned; }",
  "eval 'tou\\\nch pwned'",
  "cat <<EOF | sh\ntouch pwned\nEOF",
  "sh <<< 'touch pwned'",
  "bash -s <<< 'touch pwned'",
  "bash /dev/stdin <<< 'touch pwned'",
  "x=touch; ${x} pwned",
  "trap -- 'touch pwned' EXIT",
  "trap 'touch pwned' ERR; false",
  "builtin trap 'touch pwned' EXIT",
  "command trap 'touch pwned' EXIT",
  "t() { trap 'touch pwned' RETURN; }; t",
  "set -T; trap 'touch pwned' DEBUG; :",
  "compgen -W '`touch pwned`' x",
  'compgen -W"\\$(touch pwned)" x',
  "complete -C 'touch pwned' x; compgen -C 'touch pwned' x",
  "mapfile -c1 -C 'touch pwned #' < clean.txt",
  "mapfile -C'touch pwned #' -c 1 < clean.txt",
  "readarray -tC 'touch pwned #' -c 1 < clean.txt",
  "hash -p/usr/bin/touch ls; ls pwned",
  "hash -rp /usr/bin/touch ls; ls pwned",
  "jobs -x touch pwned",
  "x=/usr/bin/touch; hash -p $x ls; ls pwned",
  "env -u X touch pwned",
  "nohup touch pwned >/dev/null 2>&1",
  "timeout $((5)) touch pwned",
  "T=5; timeout $T touch pwned",
  "xargs touch <<< pwned",
  "sudo -n touch pwned 2>/dev/null || touch pwned",
  "command -- touch pwned",
  "exec -- touch pwned",
  "nice touch pwned",
  "stdbuf -o0 touch pwned",
  "setsid touch pwned; sleep 0.2",
  "time touch pwned",
  "time -p touch pwned",
  "! { touch pwned; }",
  "{ ! touch pwned; }",
  "coproc touch pwned; sleep 0.2",
  "function f() { touch pwned; }; f",
  "f() ( touch pwned ); f",
  "$(echo) touch pwned",
  '"" touch pwned 2>/dev/null; touch pwned',
  "${x} touch pwned",
  "$x touch pwned",
  "x= ; $x touch pwned",
];

const BENIGN: readonly string[] = [
  "for i in 1 2 3; do echo $i; done",
  "i=0; while [ $i -lt 3 ]; do i=$((i+1)); done",
  "i=0; while (( i < 3 )); do i=$((i+1)); done",
  "for ((i=0; i<3; i++)); do echo $i; done",
  "echo $((1+2)) $(( 2 * (3 + 4) )) $((16#ff)) $((0x10))",
  "n=$(( $# + 1 )); echo $n $? $$",
  "arr=(a b c); echo ${arr[0]} ${#arr[@]} ${arr[@]} ${!arr[@]} ${arr[-1]}",
  "echo ${HOME:-x} ${x%.*} ${x##*/} ${x/a/b} ${x^^} ${x@Q} ${#x} ${!BASH*}",
  "[[ -n $x && $x == y ]] && echo yes",
  '[ "$a" -eq 1 ] && echo one',
  "[[ -v HOME ]] && echo set",
  'read -r line < notes.txt; echo "$line"',
  "cat <<'EOF'\n$(x) `y`\nEOF",
  "cat <<EOF\nhello $USER, it is $(date)\nEOF",
  "git log --format='%H %s' | head -5",
  "x=5; echo $(( x * 2 ))",
  "count=0; for f in *; do count=$((count+1)); done; echo $count",
  "local x=1 2>/dev/null; declare -a arr=(1 2); export FOO=bar",
  "echo \"\\`date\\`\" 'a `b` c'",
  "printf '%s\\n' \"${arr[@]}\"",
  "git diff \\\n  --stat \\\n  HEAD",
  "mapfile -t lines < notes.txt; echo ${#lines[@]}",
  "jq '.a | .b' package.json",
  "awk '{print $1}' notes.txt | sort | head",
  "echo $(( ${#arr[@]} + 1 ))",
  'for f in $(git ls-files); do wc -l "$f"; done',
  "x=$(git rev-parse HEAD); echo ${x:0:7} ${x: -3}",
  "cd src && ls -la",
  "npm --prefix . test",
  "git -C . status",
  "echo `date`",
  "case $x in a) echo a;; *) echo other;; esac",
  "[[ $x =~ ^[0-9]+$ ]] && echo number",
  "echo {a,b,c}.txt; ls src/{a,b}",
  "if [ -f notes.txt ]; then cat notes.txt; fi",
  "test -d build || mkdir build",
  "sleep 1 & pid=$!; wait $pid",
  'printf "Total: $n\\n"',
  'command -v git && command -v "$tool"',
];

const FILE_SCRIPTS: readonly string[] = ["bash clean.txt", "sh ./clean.txt", "env bash clean.txt"];

describe("the shell engine against real bash", () => {
  const cwd = mkdtempSync(join(tmpdir(), "s05-corpus-"));
  afterAll(() => rmSync(cwd, { recursive: true, force: true }));
  const denied = loadPermissionSettings(cwd, { deny: ["Bash(touch:*)", "Edit(pwned)"] });
  const allowed = loadPermissionSettings(cwd, {
    allow: [
      "echo",
      "cat",
      "printf",
      "git",
      "ls",
      "head",
      "wc",
      "read",
      "test",
      "[",
      "date",
      "sort",
      "local",
      "sleep",
      "wait",
      "command",
    ]
      .concat(["export", "declare", "cd", "mkdir", "mapfile", "jq", "awk", "npm"])
      .map((program) => `Bash(${program}:*)`),
  });
  if (denied instanceof Error || allowed instanceof Error) throw denied;

  /**
   * Which lines make `pwned` when bash runs them, each in a directory of its own holding
   * clean.txt, all at once: one bash starts them all (a process per line from node took seconds).
   */
  const made = new Map<string, boolean>();
  beforeAll(() => {
    const lines = [...HOSTILE, ...FILE_SCRIPTS];
    lines.forEach((line, i) => {
      mkdirSync(join(cwd, `${i}`));
      writeFileSync(join(cwd, `${i}`, "clean.txt"), "touch pwned\n");
      writeFileSync(join(cwd, `${i}.sh`), line);
    });
    // the line may fail after making the file, or be stopped after 5 s: only the file counts
    const driver = [
      'for ((i = 0; i < $1; i++)); do (cd "$i" && exec timeout 5 bash -c "$(<"../$i.sh")") >/dev/null 2>&1 </dev/null & done',
      "wait",
      'for ((i = 0; i < $1; i++)); do [ -e "$i/pwned" ] && echo 1 || echo 0; done',
    ].join("\n");
    const flags = execFileSync("bash", ["-c", driver, "driver", `${lines.length}`], { cwd, encoding: "utf8" });
    flags
      .trim()
      .split("\n")
      .forEach((flag, i) => {
        made.set(lines[i], flag === "1");
      });
  }, 60_000);
  const runsTouch = (line: string) => made.get(line);

  it.each(HOSTILE)("never allows %j, which bash runs to make pwned", (line) => {
    expect(runsTouch(line)).toBe(true);
    expect(decide(bash(line), denied as never, "bypassPermissions", cwd).behavior).not.toBe("allow");
  });

  it.each(BENIGN)("allows %j under rules that allow its programs", (line) => {
    expect(decide(bash(line), allowed as never, "default", cwd)).toMatchObject({ behavior: "allow" });
  });

  it.each(FILE_SCRIPTS)("leaves %j to the rule for the shell: bypassPermissions runs it", (line) => {
    expect(runsTouch(line)).toBe(true);
    expect(decide(bash(line), denied as never, "bypassPermissions", cwd).behavior).toBe("allow");
  });
});
