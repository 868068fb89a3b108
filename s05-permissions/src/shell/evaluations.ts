/**
 * What bash evaluates that a parser does not show as a command. Arithmetic evaluates a variable's
 * value as an expression, and an array subscript in that value runs its command substitution:
 *
 *     x='a[$(rm -rf build)]'; (( x ))        runs rm -rf build
 *
 * and so do `$(( x ))`, `let x`, `[[ $x -eq 1 ]]`, `${b[x]}`, `${s:0:x}`, `b[x]=1`, `declare -i`, a
 * nameref, the names `read`, `printf -v` and `[[ -v ]]` are given, `${!x}` (indirection) and
 * `${x@P}` (prompt expansion). A piece of a line that does any of these asks, unless the engine
 * can prove it harmless: arithmetic reads only numbers, and variables the same line set to a
 * number before reading them (`i=0; while (( i < 3 )); do i=$((i+1)); done`).
 *
 * Left out: proving more. A variable from the environment, a value a command printed
 * (`$(( $(wc -l < f) + 1 ))`), an array element: none is proved a number, so each asks.
 */
import type { Node } from "web-tree-sitter";
import { parseBash } from "./bash-parser.ts";
import { readWord, type ShellWord } from "./read-word.ts";

/** Where one script gives its variables their values: what proving arithmetic on them needs. */
export interface VariableFacts {
  /** The first place each variable is set to a number (a literal, or arithmetic's result). */
  numericFrom: Map<string, number>;
  /** Variables the script sets to anything else, somewhere: never proved a number. */
  unproven: Set<string>;
}

/** Parameters that always hold a number: `$?`, `$#`, `$$`, `$!`. */
const NUMERIC_SPECIALS = new Set(["?", "#", "$", "!"]);

const ASSIGNMENT_OPERATORS = new Set(["=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "^=", "|="]);

/** `[[ ]]` operators that compare numbers: their operands are arithmetic. */
const ARITHMETIC_TESTS = new Set(["-eq", "-ne", "-lt", "-le", "-gt", "-ge"]);

/** Builtins that set the variables they name (a name given to one is never proved a number). */
const NAME_SETTERS = new Set(["read", "mapfile", "readarray", "printf", "getopts", "wait", "declare", "typeset"]);

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const INTEGER = /^[+-]?(?:0[xX][0-9a-fA-F]+|[0-9]+(?:#[0-9A-Za-z@_]+)?)$/;

/** The facts of one parsed script (`root`). */
export function variableFacts(root: Node): VariableFacts {
  const facts: VariableFacts = { numericFrom: new Map(), unproven: new Set() };
  collectFacts(root, false, facts, undefined);
  return facts;
}

function setNumeric(facts: VariableFacts, name: string, at: number): void {
  const known = facts.numericFrom.get(name);
  if (known === undefined || at < known) facts.numericFrom.set(name, at);
}

/** Visit `root`, arithmetic or not, and note every assignment; `at` stands for every position (let's re-parsed text). */
function collectFacts(root: Node, arithmetic: boolean, facts: VariableFacts, at: number | undefined): void {
  const stack: { node: Node; arithmetic: boolean }[] = [{ node: root, arithmetic }];
  while (stack.length > 0) {
    const { node, arithmetic: inArithmetic } = stack.pop() as { node: Node; arithmetic: boolean };
    const where = at ?? node.startIndex;
    let childArithmetic = inArithmetic;
    switch (node.type) {
      case "arithmetic_expansion":
      case "c_style_for_statement":
        childArithmetic = true;
        break;
      case "compound_statement":
        childArithmetic = node.child(0)?.type === "((";
        break;
      case "command_substitution":
      case "process_substitution":
      case "do_group":
        childArithmetic = false;
        break;
      case "variable_assignment": {
        const name = node.childForFieldName("name");
        const value = node.childForFieldName("value");
        if (name?.type === "subscript") facts.unproven.add(arrayName(name));
        else if (name && (inArithmetic || isNumericValue(value))) setNumeric(facts, name.text, where);
        else if (name) facts.unproven.add(name.text);
        break;
      }
      case "binary_expression":
      case "postfix_expression":
      case "unary_expression": {
        if (!inArithmetic) break;
        const operator = node.children.find((child) => child !== null && !child.isNamed)?.type ?? "";
        const target = node.namedChildren[0];
        if (!target || !(ASSIGNMENT_OPERATORS.has(operator) || operator === "++" || operator === "--")) break;
        if (target.type === "subscript") facts.unproven.add(arrayName(target));
        else if (IDENTIFIER.test(target.text)) setNumeric(facts, target.text, where);
        break;
      }
      case "for_statement": {
        // `for x in ...` and `select x in ...`: the words can be anything
        const variable = node.childForFieldName("variable");
        if (variable) facts.unproven.add(variable.text);
        break;
      }
      case "expansion": {
        // `${x:=value}` and `${x=value}` set x
        const tokens = node.children.filter((child): child is Node => child !== null && !child.isNamed);
        const name = node.namedChildren.find((child) => child?.type === "variable_name");
        if (name && tokens.some((token) => token.type === "=" || token.type === ":=")) facts.unproven.add(name.text);
        break;
      }
      case "command": {
        const words = node.namedChildren.filter(
          (child): child is Node => child !== null && child.type !== "variable_assignment",
        );
        const texts = words.map((word) => word.text);
        if (texts[0] === "let" || (["builtin", "command"].includes(texts[0]) && texts[1] === "let")) {
          for (const word of words.slice(1)) {
            const tree = parseBash(`(( ${word.text} ))`);
            if (!tree) continue;
            try {
              collectFacts(tree.rootNode, true, facts, where);
            } finally {
              tree.delete();
            }
          }
        }
        if (texts.some((text) => NAME_SETTERS.has(text))) {
          for (const text of texts) {
            const name = /^(?:-v)?([A-Za-z_][A-Za-z0-9_]*)/.exec(text)?.[1];
            if (name) facts.unproven.add(name);
          }
        }
        break;
      }
    }
    // a C-style for loop's body is commands, not arithmetic
    const body = node.type === "c_style_for_statement" ? node.childForFieldName("body") : null;
    for (let i = node.namedChildCount - 1; i >= 0; i--) {
      const child = node.namedChild(i);
      if (child) stack.push({ node: child, arithmetic: childArithmetic && child.id !== body?.id });
    }
  }
}

function isNumericValue(value: Node | null): boolean {
  if (value === null) return true; // `x=` is empty, and empty is 0
  if (value.type === "number" || value.type === "arithmetic_expansion") return true;
  // `pid=$!`, `status=$?`
  if (value.type === "simple_expansion") return NUMERIC_SPECIALS.has(value.namedChildren[0]?.text ?? "");
  if (value.type === "word" || value.type === "raw_string") return INTEGER.test(value.text.replace(/^'|'$/g, ""));
  return false;
}

function arrayName(subscript: Node): string {
  return subscript.childForFieldName("name")?.text ?? subscript.text.replace(/\[[\s\S]*$/, "");
}

function proved(name: string, at: number, facts: VariableFacts): boolean {
  if (NUMERIC_SPECIALS.has(name)) return true;
  const from = facts.numericFrom.get(name);
  return !facts.unproven.has(name) && from !== undefined && from < at;
}

function notANumber(name: string): string {
  return `arithmetic reads ${name}, which the line does not first set to a number (bash evaluates its value, and an a[$(...)] in it runs a command)`;
}

/**
 * Why arithmetic over `nodes` may run a command, or null when every variable it reads is proved a
 * number. `at` is where the reading happens (default: where each variable is read).
 */
export function arithmeticWhy(nodes: readonly Node[], facts: VariableFacts, at?: number): string | null {
  const stack = [...nodes].reverse();
  while (stack.length > 0) {
    const node = stack.pop() as Node;
    if (!node.isNamed) continue;
    const where = at ?? node.startIndex;
    switch (node.type) {
      case "number":
      case "comment":
        continue;
      case "variable_name":
      case "word":
      case "string_content": {
        const text = node.text.trim();
        if (text === "" || INTEGER.test(text)) continue;
        if (IDENTIFIER.test(text)) {
          if (!proved(text, where, facts)) return notANumber(text);
          continue;
        }
        return `arithmetic on \`${text}\`, which the engine does not read`;
      }
      case "simple_expansion": {
        const name = node.namedChildren[0]?.text ?? "";
        if (!proved(name, where, facts)) return notANumber(`$${name}`);
        continue;
      }
      case "expansion": {
        const named = node.namedChildren.filter((child): child is Node => child !== null);
        const tokens = node.children.filter((child): child is Node => child !== null && !child.isNamed);
        const name = named.length === 1 && named[0].type === "variable_name" ? named[0].text : null;
        if (name !== null && tokens.length === 3 && tokens[1].type === "#") continue; // ${#x}: a length
        if (name !== null && tokens.length === 2) {
          if (!proved(name, where, facts)) return notANumber(`\${${name}}`);
          continue;
        }
        if (tokens.some((token) => token.type === "#") && named[0]?.type === "subscript") {
          const index = named[0].childForFieldName("index")?.text;
          if (index === "@" || index === "*") continue; // ${#a[@]}: a count
        }
        return `arithmetic reads \`${node.text}\`, whose value it evaluates in turn`;
      }
      case "variable_assignment": {
        // `for ((i = 0; ...))`: the value is read, not the name
        const value = node.childForFieldName("value");
        if (value) stack.push(value);
        continue;
      }
      case "binary_expression": {
        const operator = node.children.find((child) => child !== null && !child.isNamed)?.type;
        const [left, ...rest] = node.namedChildren.filter((child): child is Node => child !== null);
        // `y = x` reads x, not y; `y += x` reads both
        for (const child of operator === "=" ? rest.reverse() : [...rest.reverse(), left]) if (child) stack.push(child);
        continue;
      }
      case "unary_expression":
      case "postfix_expression":
      case "parenthesized_expression":
      case "ternary_expression":
      case "string":
        for (let i = node.namedChildCount - 1; i >= 0; i--) {
          const child = node.namedChild(i);
          if (child) stack.push(child);
        }
        continue;
      case "subscript":
        return `arithmetic reads the array element \`${node.text}\`, whose value it evaluates in turn`;
      case "command_substitution":
      case "process_substitution":
        return `arithmetic evaluates what \`${clip(node.text)}\` prints`;
      default:
        return `arithmetic on \`${clip(node.text)}\`, which the engine does not read`;
    }
  }
  return null;
}

/** Why arithmetic on the text `expression` (a `let` argument, a subscript written in a word) may run a command. */
export function arithmeticTextWhy(expression: string, facts: VariableFacts, at: number): string | null {
  const tree = parseBash(`(( ${expression} ))`);
  if (!tree) return `arithmetic on \`${clip(expression)}\`, which the parser gave up on`;
  try {
    const root = tree.rootNode;
    const statement = root.namedChildren[0];
    if (root.hasError || root.namedChildCount !== 1 || statement?.type !== "compound_statement") {
      return `arithmetic on \`${clip(expression)}\`, which the engine does not read`;
    }
    return arithmeticWhy(
      statement.namedChildren.filter((child): child is Node => child !== null),
      facts,
      at,
    );
  } finally {
    tree.delete();
  }
}

/**
 * Why one node, taken alone, makes bash evaluate something the engine cannot prove harmless, or
 * null. The caller visits every node; commands are not its business (see `commandWhy`).
 */
export function evaluationWhy(node: Node, facts: VariableFacts): string | null {
  const named = () => node.namedChildren.filter((child): child is Node => child !== null);
  switch (node.type) {
    case "arithmetic_expansion":
      return arithmeticWhy(named(), facts);
    case "compound_statement":
      return node.child(0)?.type === "((" ? arithmeticWhy(named(), facts) : null;
    case "c_style_for_statement": {
      const body = node.childForFieldName("body");
      return arithmeticWhy(
        named().filter((child) => child.id !== body?.id),
        facts,
      );
    }
    case "subscript": {
      const index = node.childForFieldName("index") ?? named()[1];
      if (!index || index.text === "@" || index.text === "*") return null;
      const why = arithmeticWhy([index], facts);
      return why && `a subscript is arithmetic: ${why}`;
    }
    case "binary_expression": {
      const operator = named().find((child) => child.type === "test_operator");
      if (!operator || !ARITHMETIC_TESTS.has(operator.text) || !inDoubleBrackets(node)) return null;
      const why = arithmeticWhy(
        named().filter((child) => child.id !== operator.id),
        facts,
      );
      return why && `[[ ${operator.text} ]] compares numbers: ${why}`;
    }
    case "unary_expression": {
      const [operator, operand] = named();
      // `[[ -v name ]]` and `[ -v name ]` alike look the name up, subscript and all
      if (operator?.type !== "test_operator" || !/^-[vR]$/.test(operator.text) || !operand) return null;
      return nameWhy(wordOf(operand), `-v`);
    }
    case "expansion":
      return expansionWhy(node, facts);
    case "command_substitution":
      // in a here-document the parser reads `$(( x ))` as `$( (x) )`: bash reads arithmetic
      return node.text.startsWith("$((") ? `\`${clip(node.text)}\` is arithmetic the parser read as a command` : null;
    case "array":
      for (const element of named()) {
        const index = /^\[([^\]]*)\]\+?=/.exec(element.text)?.[1];
        if (index !== undefined && !INTEGER.test(index.trim())) {
          return `a subscript in an array literal, \`[${clip(index)}]\`, is arithmetic the engine does not prove`;
        }
      }
      return null;
    case "declaration_command":
      return declarationWhy(
        node.child(0)?.text ?? "",
        named().map((child) =>
          child.type === "variable_assignment" || child.type === "variable_name" ? null : wordOf(child),
        ),
      );
    case "unset_command":
      for (const child of named()) {
        const word = wordOf(child);
        if (word.value?.startsWith("-")) continue;
        const why = nameWhy(word, "unset");
        if (why) return why;
      }
      return null;
    default:
      return null;
  }
}

/** `${!x}`, `${x@P}`, `${x:offset:length}`: the operators that evaluate. */
function expansionWhy(node: Node, facts: VariableFacts): string | null {
  const children = node.children.filter((child): child is Node => child !== null);
  const tokens = children.filter((child) => !child.isNamed).map((child) => child.type);
  if (tokens[1] === "!") {
    // ${!prefix*}, ${!prefix@} list names; ${!a[@]} lists keys: nothing is evaluated
    const subject = children[2];
    const listsNames = (tokens[2] === "*" || tokens[2] === "@") && children.length === 5;
    const listsKeys =
      subject?.type === "subscript" &&
      ["@", "*"].includes(subject.childForFieldName("index")?.text ?? "") &&
      children.length === 4;
    if (!listsNames && !listsKeys) {
      return `\`${clip(node.text)}\` expands the variable whose name another holds, and a name with a[$(...)] in it runs a command`;
    }
  }
  const at = children.findIndex((child) => child.type === "@");
  if (at >= 0 && children[at + 1]?.type === "P") {
    return `\`${clip(node.text)}\` expands its value as a prompt, and a $(...) in it runs a command`;
  }
  const colon = children.findIndex((child) => child.type === ":");
  if (colon >= 0) {
    const why = arithmeticWhy(
      children.slice(colon + 1).filter((child) => child.isNamed),
      facts,
    );
    if (why) return `a substring's offset and length are arithmetic: ${why}`;
  }
  return null;
}

/**
 * Why a builtin's words may run a command: `let`'s arithmetic, a name (`read x`, `printf -v x`)
 * that is computed or subscripted, `declare -i` and `declare -n`. `at` is where the command is.
 */
export function commandWhy(
  program: string,
  args: readonly ShellWord[],
  facts: VariableFacts,
  at: number,
): string | null {
  switch (program) {
    case "let":
      for (const arg of args) {
        if (arg.value === null) return `let evaluates \`${clip(arg.source)}\`, computed at run time`;
        const why = arithmeticTextWhy(arg.value, facts, at);
        if (why) return `let is arithmetic: ${why}`;
      }
      return null;
    case "declare":
    case "typeset":
    case "local":
    case "export":
    case "readonly":
      return declarationWhy(program, [...args]);
    case "test":
    case "[":
      for (let i = 0; i < args.length - 1; i++) {
        if (args[i].value === "-v" || args[i].value === "-R") {
          const why = nameWhy(args[i + 1], `${program} ${args[i].value}`);
          if (why) return why;
        }
      }
      return null;
    default: {
      for (const name of namesGiven(program, args, facts, at)) {
        const why = nameWhy(name, program);
        if (why) return why;
      }
      return null;
    }
  }
}

/** Options of the name-setting builtins that take a value, and which of those values is a name. */
const NAME_OPTIONS: Record<string, { valued: string; names: string; operands: "all" | "first" | "second" | "none" }> = {
  read: { valued: "adinNptu", names: "a", operands: "all" },
  mapfile: { valued: "dnOsuCc", names: "", operands: "first" },
  readarray: { valued: "dnOsuCc", names: "", operands: "first" },
  printf: { valued: "v", names: "v", operands: "none" },
  getopts: { valued: "", names: "", operands: "second" },
  wait: { valued: "p", names: "p", operands: "none" },
};

/**
 * True when a word computed at run time may expand to an option (`$opts` holding `-v a[$(...)]`):
 * it starts with an expansion, and is not a variable the line set to a number (`wait $pid`).
 */
function mayBeOption(word: ShellWord, facts: VariableFacts, at: number): boolean {
  const name = /^"?\$\{?([A-Za-z_][A-Za-z0-9_]*|[?#$!])\}?"?$/.exec(word.source)?.[1];
  if (name !== undefined) return !proved(name, at, facts);
  return /^["']?[-$`]/.test(word.source);
}

/** The words a name-setting builtin takes as variable names. */
function namesGiven(program: string, args: readonly ShellWord[], facts: VariableFacts, at: number): ShellWord[] {
  const spec = NAME_OPTIONS[program];
  if (!spec) return [];
  const names: ShellWord[] = [];
  let i = 0;
  for (; i < args.length; i++) {
    const value = args[i].value;
    if (value === null) {
      if (mayBeOption(args[i], facts, at)) return [args[i]]; // an option, or a name, computed at run time
      break;
    }
    if (value === "--") {
      i++;
      break;
    }
    if (!/^-[A-Za-z]/.test(value)) break;
    const letters = value.slice(1);
    for (let k = 0; k < letters.length; k++) {
      if (!spec.valued.includes(letters[k])) continue;
      const attached = letters.slice(k + 1);
      const given = attached !== "" ? { value: attached, glob: null, source: attached } : args[++i];
      if (given && spec.names.includes(letters[k])) names.push(given);
      break;
    }
  }
  const operands = args.slice(i);
  if (spec.operands === "all") names.push(...operands);
  if (spec.operands === "first" && operands[0]) names.push(operands[0]);
  if (spec.operands === "second" && operands[1]) names.push(operands[1]);
  return names;
}

/** Why bash may run a command when it takes `word` as a variable's name (`read`, `[[ -v ]]`, `unset`). */
function nameWhy(word: ShellWord, who: string): string | null {
  if (word.value === null) {
    return `${who} is given a variable name computed at run time (\`${clip(word.source)}\`), and a name with a[$(...)] in it runs a command`;
  }
  const index = /^[A-Za-z_][A-Za-z0-9_]*\[([\s\S]*)\]$/.exec(word.value)?.[1];
  if (index === undefined || index === "@" || index === "*" || INTEGER.test(index)) return null;
  return `${who} is given the array element \`${clip(word.value)}\`, whose subscript bash evaluates`;
}

/**
 * `declare`, `local`, `export`...: `-i` makes every later assignment arithmetic and `-n` a name
 * that stands for another; a word that is not a plain name or assignment may be evaluated. `words`
 * holds null for what the parser read as an assignment or a name.
 */
function declarationWhy(keyword: string, words: (ShellWord | null)[]): string | null {
  for (const word of words) {
    if (word === null) continue;
    const value = word.value;
    if (value === null) {
      return `${keyword} is given \`${clip(word.source)}\`, computed at run time, and evaluates it as an assignment`;
    }
    if (/^[-+][A-Za-z]+$/.test(value)) {
      if (/i/.test(value)) return `${keyword} ${value} makes every assignment to its names arithmetic`;
      if (/n/.test(value) && keyword !== "export")
        return `${keyword} ${value} makes a name stand for another, evaluated when read`;
      continue;
    }
    const assignment = /^([A-Za-z_][A-Za-z0-9_]*)(\[[\s\S]*\])?(\+?=)?([\s\S]*)$/.exec(value);
    if (!assignment) continue; // not a name: bash refuses it
    if (assignment[2] && !/^\[(?:[0-9]+|@|\*)\]$/.test(assignment[2])) {
      return `${keyword} is given the array element \`${clip(value)}\`, whose subscript bash evaluates`;
    }
    if (assignment[3] && assignment[4].startsWith("(")) {
      return `${keyword} is given \`${clip(value)}\`, an array assignment it evaluates again`;
    }
  }
  return null;
}

/** True when `node` is inside `[[ ... ]]` (not `[ ... ]`, whose -eq does not evaluate). */
function inDoubleBrackets(node: Node): boolean {
  for (let parent = node.parent; parent; parent = parent.parent) {
    if (parent.type === "test_command") return parent.child(0)?.type === "[[";
  }
  return false;
}

/** A node as a word: its value, or null when it expands. */
function wordOf(node: Node): ShellWord {
  return readWord(node);
}

function clip(text: string): string {
  const flat = text.slice(0, 200).replace(/\s*\n\s*/g, " ⏎ ");
  return flat.length > 60 || text.length > 200 ? `${flat.slice(0, 57)}...` : flat;
}
