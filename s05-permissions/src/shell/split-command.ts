/**
 * A shell line, split into the simple commands it runs, the files it redirects, and what the
 * parser cannot see through. The parser is tree-sitter's bash grammar (the one editors use),
 * running as WebAssembly: no native build, and it reads every line, broken ones included (a broken
 * line is reported, and the commands in it are still found).
 *
 *     git diff && FOO=1 env rm -rf build | xargs r''m > out.txt
 *
 * runs `git diff`, `env rm -rf build` (which runs `rm -rf build`), `xargs rm` (which runs `rm`),
 * and writes `out.txt`. Commands are found everywhere they run: after `;`, `&&`, `||`, `|`, `&`
 * and newlines, in subshells, `{ ...; }` groups, `$(...)`, backticks, `<(...)`, loops, `if`,
 * function bodies (a function's commands count whether or not it is called), scripts given to a
 * shell (`sh -c`, `eval`, a here-document to `bash`), and `find -exec`.
 *
 * What it cannot prove harmless is `unseen`, and the caller asks, in every mode: a command name
 * held in a variable or computed, a script piped into a shell, what bash evaluates besides commands
 * (`evaluations.ts`: arithmetic on a variable, `${x@P}`...), text the parser left unread (a
 * backtick in a here-document), a construct it reads wrong (`time { ...; }`, a backslash-newline
 * inside a word, a glob as the command name), a line that does not parse or is too long.
 *
 * Left out: what a line does when it runs.
 */
import type { Node } from "web-tree-sitter";
import { parseBash } from "./bash-parser.ts";
import { commandWhy, evaluationWhy, type VariableFacts, variableFacts } from "./evaluations.ts";
import { literalWord, readWord, type ShellWord } from "./read-word.ts";
import { programName, unwrapCommand } from "./unwrap-command.ts";

/** One simple command the line runs. */
export interface ShellCommand {
  /** The command as written (`rm -rf build`), or its words for one found inside `-exec`. */
  text: string;
  /** The command, then each wrapper peeled off (`env rm x`, then `rm x`); see `unwrapCommand`. */
  layers: ShellWord[][];
  /** The layer an allow rule must match, or `null` when only what it runs is decided (`sh -c '...'`). */
  allowLayer: number | null;
}

/** A file the line reads (`< file`) or writes (`> file`, `>> file`, `&> file`). */
export interface ShellRedirect {
  access: "read" | "write";
  target: ShellWord;
  /** The redirection as written: `> out.txt`. */
  text: string;
}

/** A piece of the line the parser cannot see through, and why. */
export interface UnseenPart {
  text: string;
  why: string;
}

/** What a shell line runs, reads and writes, as far as a parser can tell. */
export interface SplitCommand {
  commands: ShellCommand[];
  redirects: ShellRedirect[];
  unseen: UnseenPart[];
  /** Literal `cd` and `pushd` targets: relative paths later in the line may be relative to them. */
  directories: string[];
}

/** Lines longer than this are not parsed (parsing grows with the words): they are unseen. */
export const MAX_LINE_CHARS = 50_000;

/** Scripts inside scripts (`sh -c "bash -c '...'"`) are followed this deep, then unseen. */
const MAX_DEPTH = 4;

/**
 * Variables that change which program a name runs, or what every program loads: setting one makes
 * the rest of the line unseen (`PATH=.:$PATH git status` may run a `./git` of the model's making).
 */
const RISKY_VARIABLE =
  /^(?:PATH|LD_[A-Z_]+|DYLD_[A-Z_]+|BASH_ENV|ENV|IFS|SHELLOPTS|BASHOPTS|PROMPT_COMMAND|PS4|BASH_FUNC_\S*|BASH_ALIASES|BASH_CMDS|CDPATH|HOME)$/;

/**
 * Words bash reads as keywords where a command starts. The parser reads some constructs as plain
 * commands (`time { ...; }`, `coproc { ...; }`): a command named by one of these is a construct
 * this engine does not model.
 */
const RESERVED_WORDS = new Set([
  "{",
  "}",
  "!",
  "[[",
  "]]",
  "if",
  "then",
  "else",
  "elif",
  "fi",
  "case",
  "esac",
  "for",
  "select",
  "while",
  "until",
  "do",
  "done",
  "in",
  "function",
  "coproc",
]);

/** Every node type of the grammar this engine was written against: another one is a construct it does not model. */
const MODELLED = new Set([
  "ERROR",
  "ansi_c_string",
  "arithmetic_expansion",
  "array",
  "binary_expression",
  "brace_expression",
  "c_style_for_statement",
  "case_item",
  "case_statement",
  "command",
  "command_name",
  "command_substitution",
  "comment",
  "compound_statement",
  "concatenation",
  "declaration_command",
  "do_group",
  "elif_clause",
  "else_clause",
  "expansion",
  "extglob_pattern",
  "file_descriptor",
  "file_redirect",
  "for_statement",
  "function_definition",
  "heredoc_body",
  "heredoc_content",
  "heredoc_end",
  "heredoc_redirect",
  "heredoc_start",
  "herestring_redirect",
  "if_statement",
  "list",
  "negated_command",
  "number",
  "parenthesized_expression",
  "pipeline",
  "postfix_expression",
  "process_substitution",
  "program",
  "raw_string",
  "redirected_statement",
  "regex",
  "simple_expansion",
  "special_variable_name",
  "string",
  "string_content",
  "subscript",
  "subshell",
  "ternary_expression",
  "test_command",
  "test_operator",
  "translated_string",
  "unary_expression",
  "unset_command",
  "variable_assignment",
  "variable_assignments",
  "variable_name",
  "while_statement",
  "word",
]);

/** Leaves whose text bash still expands: a `$(`, `${`, `$[` or backtick left in one is an expansion the parser did not read. */
const EXPANDED_LEAVES = new Set([
  "word",
  "string_content",
  "heredoc_content",
  "heredoc_body",
  "regex",
  "extglob_pattern",
]);

/** Files a redirection may name that are not files: the rules are not asked about them. */
const NOT_FILES = /^\/dev\/(?:null|stdin|stdout|stderr|tty|zero|random|urandom|fd\/\d+)$/;

/**
 * Split `line` into what it runs. Contract: never throws; a line that does not parse still yields
 * the commands found in it, plus an `unseen` part saying it does not parse.
 */
export function splitCommand(line: string): SplitCommand {
  const split: SplitCommand = { commands: [], redirects: [], unseen: [], directories: [] };
  if (line.length > MAX_LINE_CHARS) {
    split.unseen.push({
      text: clip(line),
      why: `it is ${line.length} characters long, more than the ${MAX_LINE_CHARS} this engine reads`,
    });
    return split;
  }
  addScript(line, split, 0);
  return split;
}

/** Add an unseen part once. */
function addUnseen(split: SplitCommand, text: string, why: string): void {
  const part = { text: clip(text), why };
  if (!split.unseen.some((seen) => seen.text === part.text && seen.why === part.why)) split.unseen.push(part);
}

function addScript(script: string, split: SplitCommand, depth: number): void {
  if (depth > MAX_DEPTH) {
    split.unseen.push({ text: clip(script), why: `scripts nest deeper than ${MAX_DEPTH} levels` });
    return;
  }
  const tree = parseBash(script);
  if (!tree) {
    split.unseen.push({ text: clip(script), why: "the parser gave up on it" });
    return;
  }
  if (gluedContinuation(script)) {
    addUnseen(
      split,
      script,
      "a line continuation (a backslash before a newline) joins two pieces of a word, which the parser reads apart",
    );
  }
  try {
    const root = tree.rootNode;
    if (root.hasError) {
      const near = firstError(root);
      split.unseen.push({
        text: clip(script),
        why: `it does not parse as bash${near ? ` (near \`${clip(near)}\`)` : ""}`,
      });
    }
    walk(root, split, depth);
  } finally {
    tree.delete(); // the tree lives in WebAssembly memory, not the JavaScript heap
  }
}

/**
 * Visit every node, depth first, in the order written; `stdin` holds the here-documents fed to the
 * statement being visited. A stack, not recursion: a line may nest ten thousand parentheses deep.
 */
function walk(root: Node, split: SplitCommand, depth: number): void {
  const facts = variableFacts(root);
  const stack: { node: Node; stdin: (string | null)[] }[] = [{ node: root, stdin: [] }];
  while (stack.length > 0) {
    const { node, stdin } = stack.pop() as { node: Node; stdin: (string | null)[] };
    const children = node.namedChildren.filter((child): child is Node => child !== null);
    let body: Node | null = null;
    let fed: (string | null)[] = [];
    if (node.type === "comment") continue;
    // what bash evaluates besides commands, constructs the parser reads wrong, text it did not read
    if (!MODELLED.has(node.type))
      addUnseen(split, node.text, `it holds a construct this engine does not model (${node.type})`);
    const evaluated = evaluationWhy(node, facts);
    if (evaluated) addUnseen(split, node.text, evaluated);
    const unread = unreadWhy(node);
    if (unread) addUnseen(split, node.text, unread);
    switch (node.type) {
      case "redirected_statement":
        body = node.childForFieldName("body");
        fed = children.flatMap(stdinOf);
        break;
      case "command":
        addCommandNode(node, split, depth, stdin, facts);
        break;
      case "declaration_command":
      case "unset_command":
        addDeclaration(node, split);
        break;
      case "file_redirect":
        addRedirect(node, split);
        break;
      case "variable_assignment":
        // `BASH_CMDS[x]=/bin/rm` sets BASH_CMDS
        checkAssignment((node.childForFieldName("name")?.text ?? "").replace(/\[[\s\S]*$/, ""), node.text, split);
        break;
    }
    // substitutions inside words, bodies of loops and groups: every command anywhere runs
    for (let i = children.length - 1; i >= 0; i--) {
      stack.push({ node: children[i], stdin: body !== null && children[i].id === body.id ? fed : [] });
    }
  }
}

function addCommandNode(
  node: Node,
  split: SplitCommand,
  depth: number,
  stdin: (string | null)[],
  facts: VariableFacts,
): void {
  const words: ShellWord[] = [];
  const fed = [...stdin];
  for (const child of node.namedChildren) {
    if (!child) continue;
    if (child.type === "variable_assignment" || child.type === "comment" || child.type === "file_redirect") continue;
    if (child.type === "herestring_redirect" || child.type === "heredoc_redirect") {
      fed.push(...stdinOf(child));
      continue;
    }
    words.push(readWord(child.type === "command_name" ? (child.firstNamedChild ?? child) : child));
  }
  addWords(words, node.text, split, depth, fed, { facts, at: node.startIndex });
}

function addWords(
  words: ShellWord[],
  text: string,
  split: SplitCommand,
  depth: number,
  stdin: (string | null)[],
  where: { facts: VariableFacts; at: number },
): void {
  if (words.length === 0 || words[0].value === "") return; // "" is a word the parser found missing
  if (words[0].value === null) {
    split.unseen.push({
      text: clip(text),
      why: `its command name \`${clip(words[0].source)}\` is computed at run time`,
    });
    return;
  }
  const unwrapped = unwrapCommand(words);
  split.commands.push({ text: clip(text), layers: unwrapped.layers, allowLayer: unwrapped.allowLayer });
  if (unwrapped.unseen) split.unseen.push({ text: clip(text), why: unwrapped.unseen });
  unwrapped.layers.forEach((layer, n) => {
    const program = layer[0];
    if (program.value === null) {
      const runner = unwrapped.layers[n - 1]?.[0].value ?? "";
      addUnseen(split, text, `the command \`${runner}\` runs, \`${clip(program.source)}\`, is computed at run time`);
    } else if (program.glob !== null && program.value !== "[") {
      addUnseen(
        split,
        text,
        `its command name \`${clip(program.source)}\` is a pattern the shell expands (a glob or a brace expansion)`,
      );
    } else if (RESERVED_WORDS.has(program.value)) {
      addUnseen(
        split,
        text,
        `\`${program.value}\` is a shell keyword the parser read as a command name here: a construct this engine does not model`,
      );
    }
  });
  const runs = unwrapped.layers[unwrapped.layers.length - 1];
  const evaluated = commandWhy(programName(runs[0].value ?? ""), runs.slice(1), where.facts, where.at);
  if (evaluated) addUnseen(split, text, evaluated);
  for (const layer of unwrapped.layers) {
    // `env PATH=. git status`: the assignment env makes
    if (programName(layer[0].value ?? "") !== "env") continue;
    for (const word of layer.slice(1)) {
      const name = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(word.value ?? "")?.[1];
      if (name) checkAssignment(name, word.source, split);
    }
  }
  for (const script of unwrapped.scripts) addScript(script, split, depth + 1);
  for (const exec of unwrapped.execs) {
    addWords(exec, exec.map((word) => word.source).join(" "), split, depth + 1, [], where);
  }
  if (unwrapped.readsScriptFromStdin) {
    if (stdin.length === 0) {
      split.unseen.push({
        text: clip(text),
        why: "a shell reads its commands from standard input, which the parser cannot see",
      });
    }
    for (const script of stdin) {
      if (script === null) split.unseen.push({ text: clip(text), why: "a shell is fed a script computed at run time" });
      else addScript(script, split, depth + 1);
    }
  }
  const last = unwrapped.layers[unwrapped.layers.length - 1];
  const program = programName(last[0].value ?? "");
  if ((program === "cd" || program === "pushd") && last[1]?.value) split.directories.push(last[1].value);
}

/** `export A=1`, `local x`, `unset y`: builtins the grammar gives nodes of their own; rules name them like commands. */
function addDeclaration(node: Node, split: SplitCommand): void {
  const keyword = node.child(0)?.text ?? node.type;
  const args = node.namedChildren.flatMap((child) =>
    child ? [/[$`]/.test(child.text) ? { value: null, glob: null, source: child.text } : literalWord(child.text)] : [],
  );
  split.commands.push({ text: clip(node.text), layers: [[literalWord(keyword), ...args]], allowLayer: 0 });
}

function addRedirect(node: Node, split: SplitCommand): void {
  const operator = node.children.find((child) => child && !child.isNamed)?.type ?? "";
  const destination = node.childForFieldName("destination");
  if (!destination) return;
  if (
    (operator === ">&" || operator === "<&" || operator === ">&-" || operator === "<&-") &&
    /^(?:\d+|-)$/.test(destination.text)
  ) {
    return; // `2>&1`, `>&-`: descriptors, not files
  }
  const target = readWord(destination);
  if (target.value !== null && NOT_FILES.test(target.value)) return;
  const access = operator === "<" || operator === "<&" ? "read" : "write";
  split.redirects.push({ access, target, text: clip(node.text) });
}

/** What a here-document or here-string feeds a command: its text, or null when computed. */
function stdinOf(node: Node): (string | null)[] {
  if (node.type === "heredoc_redirect") {
    const body = node.namedChildren.find((child) => child?.type === "heredoc_body");
    return [body?.text ?? ""];
  }
  if (node.type === "herestring_redirect") {
    const word = node.namedChildren.find((child) => child && child.type !== "comment");
    return word ? [readWord(word).value] : [];
  }
  return [];
}

function checkAssignment(name: string, text: string, split: SplitCommand): void {
  if (RISKY_VARIABLE.test(name)) {
    split.unseen.push({ text: clip(text), why: `it sets ${name}, which changes what the commands after it run` });
  }
}

/**
 * Why a leaf holds an expansion the parser did not read: a backtick or `$(` left in a word, in a
 * here-document (`<<-` bodies and backticks in bodies are not parsed), inside `${...}`; or a
 * backslash before a backtick or `$` inside backticks, where bash reads the command again.
 */
function unreadWhy(node: Node): string | null {
  if (!EXPANDED_LEAVES.has(node.type) || node.namedChildCount > 0 || inQuotedHeredoc(node)) return null;
  const text = node.text;
  if (insideBackticks(node) && /\\[`$]/.test(text)) {
    return "backslashes inside backticks make bash read the command inside again, which this engine does not follow";
  }
  if (/(?:^|[^\\])(?:\\\\)*(?:`|\$[({[])/.test(text)) return "it holds an expansion the parser did not read";
  return null;
}

function insideBackticks(node: Node): boolean {
  for (let parent = node.parent; parent; parent = parent.parent) {
    if (parent.type === "command_substitution" && parent.child(0)?.type === "`") return true;
  }
  return false;
}

/** True inside the body of `<<'EOF'`, `<<"EOF"` or `<<\EOF`: bash expands nothing there. */
function inQuotedHeredoc(node: Node): boolean {
  for (let parent = node.parent; parent; parent = parent.parent) {
    if (parent.type === "heredoc_redirect") {
      const start = parent.namedChildren.find((child) => child?.type === "heredoc_start");
      return /['"\\]/.test(start?.text ?? "");
    }
  }
  return false;
}

/**
 * True when a backslash-newline joins two pieces of a word (`r\⏎m`): bash reads `rm`, the parser
 * two words. Between words (`a \⏎ b`) it is read right, and is fine.
 */
function gluedContinuation(script: string): boolean {
  for (let i = script.indexOf("\\\n"); i !== -1; i = script.indexOf("\\\n", i + 2)) {
    let start = i;
    while (start > 0 && script[start - 1] === "\\") start--;
    if ((i - start) % 2 !== 0) continue; // an even run of backslashes: the newline is not escaped
    const before = script[start - 1];
    const after = script[i + 2];
    if (before !== undefined && after !== undefined && /\S/.test(before) && /\S/.test(after)) return true;
  }
  return false;
}

function firstError(root: Node): string | undefined {
  let node: Node | null = root;
  while (node) {
    if (node.isError || node.isMissing) return node.isMissing ? `missing ${node.type}` : node.text;
    node = node.children.find((child): child is Node => child !== null && (child.hasError || child.isMissing)) ?? null;
  }
  return undefined;
}

/** A long piece of a line, cut for a one-line reason. */
function clip(text: string): string {
  // cut first: a regular expression over a 50,000-character line of spaces takes seconds
  const flat = text.slice(0, 400).replace(/\s*\n\s*/g, " ⏎ ");
  return flat.length > 120 || text.length > 400 ? `${flat.slice(0, 117)}...` : flat;
}
