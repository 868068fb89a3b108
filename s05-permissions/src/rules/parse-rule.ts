/**
 * A permission rule, read from its text: a tool name, optionally with a specifier in parentheses,
 * in Claude Code's form.
 *
 *     Bash                 every shell command
 *     Bash(npm test)       exactly this command
 *     Bash(git diff:*)     this command, alone or followed by more words (a prefix, on word boundaries)
 *     Bash(npm run * --x)  `*` matches any run of characters, spaces included
 *     Read(src/**)         a gitignore-style path pattern, relative to the working directory
 *     Edit(/docs/**)       a leading `/` anchors at the working directory (the project root)
 *     Read(//etc/**)       `//` starts an absolute path; `~/` starts at the home directory
 *
 *     mcp__files           every tool of the MCP server `files` (s14); `mcp__files__*` says the same
 *     mcp__files__read     that one tool of that server
 *
 * Left out: Claude Code's other tools (WebFetch, Agent): this harness has none.
 */
import { isRuleToolName, type RuleToolName } from "./rule-tools.ts";

/** What a rule's parentheses say. */
export type RuleSpecifier =
  /** No parentheses: the whole tool. */
  | { kind: "any" }
  /** A Bash rule: the command, exactly, as a prefix (`:*`), or with `*` wildcards. */
  | { kind: "command"; match: "exact" | "prefix" | "wildcard"; pattern: string }
  /** A Read, Edit or Write rule: a gitignore pattern under `root`. */
  | { kind: "path"; pattern: string; root: PathRoot }
  /** An MCP rule (s14): one server's tools, all of them or the one named. */
  | { kind: "mcp"; server: string; tool?: string };

/** Where a path rule's pattern starts: `//` the file system's root, `~/` home, else the working directory. */
export type PathRoot = "filesystem" | "home" | "cwd";

/** A rule that parsed. */
export interface PermissionRule {
  /** The rule as the user wrote it: `Bash(git diff:*)`. */
  text: string;
  /** The tool the rule names; `mcp` for a rule on an MCP server's tools. */
  tool: RuleToolName | "mcp";
  specifier: RuleSpecifier;
}

/** Why a rule did not parse: one sentence, without the rule (the caller names it and where it is). */
export interface RuleSyntaxError {
  error: string;
}

const SHAPE = /^([A-Za-z_][A-Za-z0-9_]*)(?:\((.*)\))?$/s;

/** The course's tool names, so a rule written with one gets a pointer to the rule name. */
const COURSE_NAMES: Record<string, RuleToolName> = {
  bash: "Bash",
  read_file: "Read",
  edit_file: "Edit",
  write_file: "Write",
  glob: "Glob",
  grep: "Grep",
};

/**
 * Read one rule. Contract: never throws; a rule that does not parse is a `RuleSyntaxError` saying
 * what is wrong with it.
 */
export function parseRule(text: string): PermissionRule | RuleSyntaxError {
  const trimmed = text.trim();
  if (trimmed.startsWith(MCP_PREFIX)) return mcpRule(trimmed);
  const shape = SHAPE.exec(trimmed);
  if (!shape) {
    return { error: "expected a tool name, optionally with a specifier in parentheses, e.g. Bash(git diff:*)" };
  }
  const [, tool, inner] = shape;
  if (!isRuleToolName(tool)) {
    const hint = COURSE_NAMES[tool] ? ` (rules use Claude Code's names: write ${COURSE_NAMES[tool]}, not ${tool})` : "";
    return { error: `unknown tool ${tool}: rules name Bash, Read, Edit, Write, Glob or Grep${hint}` };
  }
  if (inner === undefined) return { text: trimmed, tool, specifier: { kind: "any" } };
  const body = inner.trim();
  if (body === "") return { error: `${tool}() is empty: write ${tool} alone for the whole tool` };

  switch (tool) {
    case "Bash":
      return commandRule(trimmed, body);
    case "Read":
    case "Edit":
    case "Write":
      return pathRule(trimmed, tool, body);
    case "Glob":
    case "Grep":
      // Claude Code gives these no specifier: a Read(path) rule reaches their paths
      return { error: `${tool} takes no specifier; a Read(path) rule covers the paths ${tool.toLowerCase()} searches` };
  }
}

function commandRule(text: string, body: string): PermissionRule | RuleSyntaxError {
  // words are compared one space apart, as the command's words are
  const pattern = body.replace(/\s+/g, " ");
  if (pattern === "*") return { text, tool: "Bash", specifier: { kind: "any" } };
  if (pattern.endsWith(":*")) {
    const prefix = pattern.slice(0, -2).trim();
    if (prefix === "") return { error: "nothing before :* (write Bash alone for every command)" };
    if (prefix.includes("*")) return { error: "a :* prefix rule takes no other *" };
    return { text, tool: "Bash", specifier: { kind: "command", match: "prefix", pattern: prefix } };
  }
  if (pattern.includes(":*")) return { error: ":* goes only at the end (Bash(git diff:*)); use * elsewhere" };
  const match = pattern.includes("*") ? "wildcard" : "exact";
  return { text, tool: "Bash", specifier: { kind: "command", match, pattern } };
}

function pathRule(text: string, tool: RuleToolName, body: string): PermissionRule | RuleSyntaxError {
  if (body.startsWith("!")) return { error: "a rule cannot be a negated (!) pattern: write the narrower rule instead" };
  let root: PathRoot = "cwd";
  let pattern = body;
  if (body.startsWith("//")) {
    root = "filesystem";
    pattern = body.slice(2);
  } else if (body === "~" || body.startsWith("~/")) {
    root = "home";
    pattern = body.slice(2);
  } else if (body.startsWith("./")) {
    pattern = body.slice(2);
  }
  // a leading `/` stays: in gitignore it anchors the pattern at its root, which is the project root here
  if (pattern.split("/").includes("..")) {
    return { error: "a path rule cannot climb out with ..: use //absolute/path or ~/path" };
  }
  if (pattern === "" || pattern === "/") pattern = "**";
  return { text, tool, specifier: { kind: "path", pattern, root } };
}

/** The prefix of every MCP tool's name: `mcp__SERVER__TOOL`. */
export const MCP_PREFIX = "mcp__";

/** `mcp__SERVER`, `mcp__SERVER__*` or `mcp__SERVER__TOOL`, in Claude Code's form: no parentheses. */
function mcpRule(text: string): PermissionRule | RuleSyntaxError {
  if (!/^[A-Za-z0-9_*-]+$/.test(text)) {
    return { error: "an MCP rule is mcp__SERVER or mcp__SERVER__TOOL: letters, digits, - and _, no parentheses" };
  }
  const name = text.slice(MCP_PREFIX.length);
  const cut = name.indexOf("__");
  const server = cut === -1 ? name : name.slice(0, cut);
  const tool = cut === -1 ? undefined : name.slice(cut + 2);
  if (server === "") return { error: "no server after mcp__: write mcp__SERVER or mcp__SERVER__TOOL" };
  if (tool === "") return { error: "nothing after the server's __: write mcp__SERVER alone for all its tools" };
  return { text, tool: "mcp", specifier: { kind: "mcp", server, tool: tool === "*" ? undefined : tool } };
}

/** True when `parsed` is a syntax error rather than a rule. */
export function isRuleSyntaxError(parsed: PermissionRule | RuleSyntaxError): parsed is RuleSyntaxError {
  return "error" in parsed;
}
