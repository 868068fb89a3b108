import { homedir } from "node:os";
import { describe, expect, it } from "vitest";
import { splitCommand } from "../src/index.ts";

/** Each simple command's innermost layer, as words. */
function programs(line: string): (string | null)[][] {
  return splitCommand(line).commands.map((c) => c.layers[c.layers.length - 1].map((w) => w.value));
}

describe("splitCommand", () => {
  it("finds every simple command of a compound line", () => {
    expect(programs("git diff && npm test || echo failed; ls | wc -l & sleep 1\npwd")).toEqual([
      ["git", "diff"],
      ["npm", "test"],
      ["echo", "failed"],
      ["ls"],
      ["wc", "-l"],
      ["sleep", "1"],
      ["pwd"],
    ]);
  });

  it("finds commands in subshells, groups, substitutions, backticks, loops, conditions and function bodies", () => {
    const line =
      '(cd a && make) ; { rm x; } ; echo "$(date)" `whoami` <(sort f) ; for f in *; do gzip "$f"; done ; if test -f x; then touch y; fi ; f() { shred z; }';
    expect(programs(line).map((words) => words[0])).toEqual(
      expect.arrayContaining(["cd", "make", "rm", "echo", "date", "whoami", "sort", "gzip", "test", "touch", "shred"]),
    );
  });

  it("reads words as the program receives them: quotes removed, escapes undone", () => {
    expect(programs(`r''m "-rf" \\b'uil'd $'\\x72m' ~/x`)).toEqual([["rm", "-rf", "build", "rm", `${homedir()}/x`]]);
  });

  it("leaves a word computed at run time without a value", () => {
    expect(programs('echo $HOME "$(id)" a$B')).toEqual([["echo", null, null, null], ["id"]]);
  });

  it("peels wrappers into layers and parses the scripts given to shells, eval and here-documents", () => {
    expect(programs("env FOO=1 nohup timeout -s KILL 5 rm x")).toEqual([["rm", "x"]]);
    expect(programs("sh -c 'rm -rf a'; bash -ec \"rm b\"; eval 'rm c'")).toEqual([
      ["sh", "-c", "rm -rf a"],
      ["rm", "-rf", "a"],
      ["bash", "-ec", "rm b"],
      ["rm", "b"],
      ["eval", "rm c"],
      ["rm", "c"],
    ]);
    expect(programs("bash <<'EOF'\nrm -rf d\nEOF")).toEqual([["bash"], ["rm", "-rf", "d"]]);
    expect(programs("find . -name '*.o' -exec rm -f {} \\;")).toEqual([
      ["find", ".", "-name", "*.o", "-exec", "rm", "-f", "{}", ";"],
      ["rm", "-f", "{}"],
    ]);
  });

  it("reports reads and writes of files, not of descriptors or /dev/null", () => {
    const split = splitCommand("sort < in.txt > out.txt 2>&1 2>/dev/null >> log.txt &> all.txt");
    expect(split.redirects.map((r) => [r.access, r.target.value])).toEqual([
      ["read", "in.txt"],
      ["write", "out.txt"],
      ["write", "log.txt"],
      ["write", "all.txt"],
    ]);
  });

  it("says what it cannot see through", () => {
    const whys = (line: string) => splitCommand(line).unseen.map((u) => u.why);
    expect(whys("$CMD x")).toEqual(["its command name `$CMD` is computed at run time"]);
    expect(whys("$(echo rm) x")).toEqual(["its command name `$(echo rm)` is computed at run time"]);
    expect(whys('eval "$X"')).toEqual(["eval runs a script computed at run time"]);
    expect(whys('sh -c "$S"')).toEqual(["sh -c runs a script computed at run time"]);
    expect(whys("curl -s x | sh")).toEqual([
      "a shell reads its commands from standard input, which the parser cannot see",
    ]);
    expect(whys("PATH=.:$PATH git status")).toEqual(["it sets PATH, which changes what the commands after it run"]);
    expect(whys("env LD_PRELOAD=x.so ls")).toEqual([
      "it sets LD_PRELOAD, which changes what the commands after it run",
    ]);
    expect(whys("ls |")[0]).toMatch(/^it does not parse as bash/);
  });

  it("still finds the commands of a line that does not parse", () => {
    const split = splitCommand("rm -rf x && (echo");
    expect(split.commands.map((c) => c.layers[0][0].value)).toContain("rm");
    expect(split.unseen).toHaveLength(1);
  });

  it("notes the directories a line changes into", () => {
    expect(splitCommand("cd sub && cat f; pushd /tmp").directories).toEqual(["sub", "/tmp"]);
  });

  it("stops following scripts nested deeper than four levels", () => {
    const nested = `sh -c "sh -c 'sh -c \\"sh -c \\\\\\"sh -c rm\\\\\\"\\"'"`;
    expect(splitCommand(nested).unseen.map((u) => u.why)).toContain("scripts nest deeper than 4 levels");
  });
});
