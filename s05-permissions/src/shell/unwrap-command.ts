/**
 * The program a simple command really runs, however it is reached. `env`, `command`, `nohup`,
 * `timeout 5`, `xargs -0` and their like run the words that follow them; `sudo` does too, as
 * another user. A shell given a literal script (`sh -c 'rm x'`), `eval 'rm x'`, `watch 'rm x'` and
 * `env -S 'rm x'` run a script this engine can parse in turn; `find -exec rm {} ;` runs a command
 * of its own for every file.
 *
 * Each wrapper peeled off gives a layer: `timeout 5 nohup rm -rf x` has the layers
 * `timeout 5 nohup rm -rf x`, `nohup rm -rf x` and `rm -rf x`. Deny and ask rules are matched
 * against every layer; allow rules against the first layer that is not a transparent wrapper
 * (`sudo apt install x` needs a rule that allows sudo, not only apt).
 *
 * `trap 'rm x' EXIT` runs its literal script too, later. Builtins that run what this engine cannot
 * read, or make a name run something else, are unseen: `source` and `.` (a file's script, in this
 * shell), `fc` (the history), `alias`, `hash -p`, `enable -f`, `bind -x`, `complete -C`,
 * `compgen -C` and `-W`, `mapfile -C`, `jobs -x`, and a wrapper given its command at run time.
 *
 * Left out: the endless rest. Any program can run its arguments (`git -c alias.x='!rm x' x`,
 * `make`, `npm run`, `bash script.sh`, a script of your own); a rule that allows such a program
 * allows what it runs.
 */
import { literalWord, type ShellWord } from "./read-word.ts";

/** A simple command, unwrapped. */
export interface Unwrapped {
  /** The command as written, then each wrapper peeled off in turn; the last is the program run. */
  layers: ShellWord[][];
  /**
   * The layer allow rules are matched against, or `null` when the command only runs a script or
   * commands that are decided on their own (`sh -c 'git status'` is allowed when `git status` is).
   */
  allowLayer: number | null;
  /** Script text the command runs (`sh -c`, `eval`, `watch`, `env -S`), to be parsed in turn. */
  scripts: string[];
  /** Commands it runs on its own, as words (`find -exec rm {} ;`). */
  execs: ShellWord[][];
  /** Set when it runs something the parser cannot see: why. */
  unseen?: string;
  /** Set when it is a shell that reads its script from standard input. */
  readsScriptFromStdin?: boolean;
}

/** Files that are standard input: a shell given one reads its script from there. */
const STDIN_FILES = new Set(["/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"]);

/** Shells whose `-c` script is parsed as bash. */
const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh", "ash", "mksh", "busybox"]);

/**
 * Wrappers that run the words after their options: the options that take a value (as the next
 * word, or attached), and whether a word before the command is required (timeout's duration).
 * `transparent: false` marks a wrapper that changes who runs the command (an allow rule must name it).
 */
const WRAPPERS: Record<string, { valued: string[]; positional?: number; transparent?: false; assignments?: true }> = {
  command: { valued: [] },
  builtin: { valued: [] },
  exec: { valued: ["-a"] },
  nohup: { valued: [] },
  time: { valued: ["-f", "-o", "--format", "--output"] },
  nice: { valued: ["-n", "--adjustment"] },
  ionice: { valued: ["-c", "-n", "--class", "--classdata"] },
  timeout: { valued: ["-s", "-k", "--signal", "--kill-after"], positional: 1 },
  stdbuf: { valued: ["-i", "-o", "-e", "--input", "--output", "--error"] },
  setsid: { valued: [] },
  env: { valued: ["-u", "-C", "--unset", "--chdir"], assignments: true },
  xargs: {
    valued: [
      "-a",
      "-d",
      "-E",
      "-I",
      "-L",
      "-n",
      "-P",
      "-s",
      "--arg-file",
      "--delimiter",
      "--max-args",
      "--max-procs",
      "--max-chars",
      "--max-lines",
      "--replace",
      "--eof",
      "--process-slot-var",
    ],
  },
  sudo: {
    valued: ["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-T", "-U", "--user", "--group", "--prompt"],
    transparent: false,
    assignments: true,
  },
  doas: { valued: ["-u", "-C"], transparent: false },
};

const MAX_LAYERS = 16;

/** The program name a word stands for: `/usr/bin/rm` and `rm` both run rm. */
export function programName(word: string): string {
  return word.slice(word.lastIndexOf("/") + 1);
}

/** Peel the wrappers off one simple command. */
export function unwrapCommand(words: ShellWord[]): Unwrapped {
  const result: Unwrapped = { layers: [words], allowLayer: 0, scripts: [], execs: [] };
  let current = words;
  while (result.layers.length < MAX_LAYERS) {
    const name = current[0]?.value;
    if (name === null || name === undefined) return result;
    const program = programName(name);
    const args = current.slice(1);

    if (program === "eval") return runsScript(result, args, "eval");
    if (program === "trap") return trap(result, args);
    const opaque = opaqueBuiltin(program, args);
    if (opaque) {
      result.unseen = opaque;
      return result;
    }
    if (SHELLS.has(program)) return shell(result, program, args);
    if (program === "watch") return watch(result, args);
    if (program === "find") {
      result.execs.push(...findExecs(args));
      return result;
    }
    const wrapper = WRAPPERS[program];
    if (!wrapper) return result;
    // `command -v name` and `command -V name` look a name up and run nothing
    if (program === "command" && lookupOnly(args)) return result;
    if (program === "env") {
      const split = args.findIndex((word) => word.value === "-S" || word.value?.startsWith("--split-string"));
      if (split >= 0) return envSplitString(result, args, split);
    }
    const start = commandStart(args, wrapper.valued, wrapper.positional ?? 0, wrapper.assignments === true);
    if (start === null) return result; // an option computed at run time: the wrapper stays the program
    if (start >= args.length) return result; // `xargs` alone runs echo; `env` alone prints
    current = args.slice(start);
    result.layers.push(current);
    // an allow rule must still name a wrapper that changes who runs the command
    if (wrapper.transparent !== false && result.allowLayer === result.layers.length - 2) {
      result.allowLayer = result.layers.length - 1;
    }
  }
  return result;
}

/**
 * The index of the first word of the wrapped command: options (and their values) skipped,
 * `NAME=value` skipped where the wrapper takes them, `positional` words skipped after the options.
 * `null` when a word on the way is computed at run time.
 */
function commandStart(args: ShellWord[], valued: string[], positional: number, assignments: boolean): number | null {
  let i = 0;
  while (i < args.length) {
    const word = args[i].value;
    if (word === null) break; // computed: it may be the command (the caller says it cannot be read)
    if (word === "--") {
      i++;
      break;
    }
    if (assignments && /^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) {
      i++;
      continue;
    }
    if (!word.startsWith("-") || word === "-") break;
    // `-n 5` takes the next word; `-n5` and `--max-args=5` carry their value
    i += valued.includes(word) ? 2 : 1;
  }
  return Math.min(i + positional, args.length);
}

function runsScript(result: Unwrapped, args: ShellWord[], what: string): Unwrapped {
  decidedByWhatItRuns(result);
  if (args.length === 0) return result;
  if (args.some((word) => word.value === null)) {
    result.unseen = `${what} runs a script computed at run time`;
    return result;
  }
  result.scripts.push(args.map((word) => word.value).join(" "));
  return result;
}

/**
 * The innermost layer runs only a script: no allow rule is needed for it, what the script runs is
 * decided instead. A wrapper outside it that an allow rule must name (sudo) still must be named.
 */
function decidedByWhatItRuns(result: Unwrapped): void {
  if (result.allowLayer === result.layers.length - 1) result.allowLayer = null;
}

/** `sh -c SCRIPT`, `bash -ec SCRIPT`, `bash file.sh` (a file: the rule for bash decides), or stdin. */
function shell(result: Unwrapped, program: string, args: ShellWord[]): Unwrapped {
  let i = program === "busybox" ? 1 : 0; // busybox sh -c ...
  let script = false;
  for (; i < args.length; i++) {
    const word = args[i].value;
    if (word === null) {
      result.unseen = `${program} is given options computed at run time`;
      decidedByWhatItRuns(result);
      return result;
    }
    if (word === "--" || word === "-") {
      i++;
      break;
    }
    if (/^[-+][A-Za-z]*c[A-Za-z]*$/.test(word)) {
      script = true; // the next word is the script, whatever it looks like
      i++;
      break;
    }
    if (
      word === "-o" ||
      word === "+o" ||
      word === "-O" ||
      word === "+O" ||
      word === "--rcfile" ||
      word === "--init-file"
    )
      i++;
    else if (!word.startsWith("-") && !word.startsWith("+")) break;
  }
  if (script) return runsScript(result, args.slice(i, i + 1), `${program} -c`);
  if (i >= args.length || STDIN_FILES.has(args[i].value ?? "")) {
    // no script and no file: the commands come from standard input (a here-document, or a pipe)
    result.readsScriptFromStdin = true;
    decidedByWhatItRuns(result);
  }
  return result;
}

/** True when `command`'s options, before the name, hold -v or -V: the name is looked up, not run. */
function lookupOnly(args: ShellWord[]): boolean {
  for (const word of args) {
    const value = word.value ?? "";
    if (!/^-[pvV]+$/.test(value)) return false;
    if (/[vV]/.test(value)) return true;
  }
  return false;
}

/** `trap [-lpP] [action signal...]`: the action is a script, run when a signal comes (or the shell exits). */
function trap(result: Unwrapped, args: ShellWord[]): Unwrapped {
  let i = 0;
  while (i < args.length && /^-[lpP]+$/.test(args[i].value ?? "")) i++;
  if (args[i]?.value === "--") i++;
  const operands = args.slice(i);
  const action = operands[0];
  // `trap` alone or with one operand lists or resets; `-`, '' and a number reset
  if (operands.length < 2 || action.value === "-" || action.value === "" || /^\d+$/.test(action.value ?? "")) {
    return result;
  }
  return runsScript(result, [action], "trap");
}

/**
 * True when a word of `args` before `--` is the option `-letter`, alone, grouped (`-tC`) or with its
 * value attached (`-Ccallback`), or is computed at run time. Every word is looked at, values of
 * other options too: better a question too many than an option missed.
 */
function hasOption(args: ShellWord[], letter: string): boolean {
  for (const word of args) {
    const value = word.value;
    if (value === null) return true;
    if (value === "--") return false;
    if (/^-[A-Za-z]*/.exec(value)?.[0].includes(letter)) return true;
  }
  return false;
}

/**
 * Why a builtin runs what this engine cannot read, or makes a name run something else; undefined
 * for the rest. Each may change what the rest of the line runs.
 */
function opaqueBuiltin(program: string, args: ShellWord[]): string | undefined {
  switch (program) {
    case "source":
    case ".":
      return `${program} runs the script in a file, in this shell, and this engine does not read files`;
    case "fc":
      return "fc runs commands again from the shell's history, or an editor's output";
    case "alias":
      if (args.some((word) => word.value === null || word.value.includes("="))) {
        return "alias makes a name run something else, which this engine does not follow";
      }
      return undefined;
    case "hash":
      return hasOption(args, "p") ? "hash -p makes a name run another program" : undefined;
    case "enable":
      return hasOption(args, "f") ? "enable -f loads a builtin from a shared library" : undefined;
    case "bind":
      return hasOption(args, "x") ? "bind -x runs a command when a key is pressed" : undefined;
    case "jobs":
      return hasOption(args, "x") ? "jobs -x runs a command" : undefined;
    case "mapfile":
    case "readarray":
      return hasOption(args, "C") ? `${program} -C runs a callback for the lines it reads` : undefined;
    case "complete":
    case "compgen": {
      if (hasOption(args, "C")) return `${program} -C runs a command`;
      const list = args.findIndex((word) => word.value?.startsWith("-W"));
      if (list >= 0) {
        const words = args[list].value === "-W" ? args[list + 1]?.value : args[list].value?.slice(2);
        // the word list is expanded when used: $(...) and backticks in it run
        if (words === null || words === undefined || /[$`]/.test(words)) {
          return `${program} -W expands its word list, and a $(...) in it runs a command`;
        }
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

/** `watch [options] command words...`: the words are joined and run by `sh -c`. */
function watch(result: Unwrapped, args: ShellWord[]): Unwrapped {
  const start = commandStart(args, ["-n", "-d", "--interval", "-q", "--equexit"], 0, false);
  if (start === null || start >= args.length) return result;
  return runsScript(result, args.slice(start), "watch");
}

/** `env -S 'cmd args'` / `env --split-string=...`: the string is split into the command's words. */
function envSplitString(result: Unwrapped, args: ShellWord[], at: number): Unwrapped {
  const option = args[at].value ?? "";
  const attached = option.startsWith("--split-string=") ? option.slice("--split-string=".length) : null;
  const rest = attached === null ? args.slice(at + 1) : [literalWord(attached), ...args.slice(at + 1)];
  return runsScript(result, rest, "env -S");
}

/** `find ... -exec cmd args {} ;` (also -execdir, -ok, -okdir; ended by `;` or `+`). */
function findExecs(args: ShellWord[]): ShellWord[][] {
  const execs: ShellWord[][] = [];
  for (let i = 0; i < args.length; i++) {
    if (!["-exec", "-execdir", "-ok", "-okdir"].includes(args[i].value ?? "")) continue;
    let end = i + 1;
    while (end < args.length && args[end].value !== ";" && args[end].value !== "+") end++;
    if (end > i + 1) execs.push(args.slice(i + 1, end));
    i = end;
  }
  return execs;
}
