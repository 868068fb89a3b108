/**
 * Which of the course's tools a rule names. Rules are written in Claude Code's words (`Bash`,
 * `Read`, `Edit`, `Write`, `Glob`, `Grep`); the tools the model calls have the course's names
 * (`bash`, `read_file`, `write_file`, `edit_file`, `glob`, `grep`). This is the one map between them.
 *
 * Claude Code's documentation: "Edit rules apply to all built-in tools that edit files" and Read
 * rules apply, best effort, "to all built-in tools that read files like Grep and Glob". So `Edit`
 * names edit_file and write_file, and `Read` names read_file, glob and grep. One difference: Claude
 * Code accepts a `Write(path)` rule and never matches it (it warns at start: "only Edit(path) rules
 * are"); here `Write(path)` names what writes a whole file (write_file and a shell redirection), so a
 * rule the user wrote is never dead weight.
 */

/** A rule's tool name, as Claude Code spells it. */
export type RuleToolName = "Bash" | "Read" | "Edit" | "Write" | "Glob" | "Grep";

/** The tools of the course, as the model calls them. */
export type CourseToolName = "bash" | "read_file" | "write_file" | "edit_file" | "glob" | "grep";

/** Each rule name, and the course tools a rule with that name covers. */
export const RULE_TOOLS: Readonly<Record<RuleToolName, readonly CourseToolName[]>> = {
  Bash: ["bash"],
  Read: ["read_file", "glob", "grep"],
  Edit: ["edit_file", "write_file"],
  Write: ["write_file"],
  Glob: ["glob"],
  Grep: ["grep"],
};

/** The tools that only read: they run in every mode, plan included, unless a rule says otherwise. */
export const READ_ONLY_TOOLS: readonly CourseToolName[] = ["read_file", "glob", "grep"];

/** The tools that change files in the working directory. */
export const EDIT_TOOLS: readonly CourseToolName[] = ["edit_file", "write_file"];

/**
 * Claude Code's name for each of the course's tools: what a rule names, what a hook written for
 * Claude Code matches and reads as `tool_name`. One map, for the rules and the hooks.
 */
export const CLAUDE_CODE_TOOL_NAMES: Readonly<Record<CourseToolName, RuleToolName>> = {
  bash: "Bash",
  read_file: "Read",
  write_file: "Write",
  edit_file: "Edit",
  glob: "Glob",
  grep: "Grep",
};

/** True when `name` is one of the rule names above. */
export function isRuleToolName(name: string): name is RuleToolName {
  return Object.hasOwn(RULE_TOOLS, name);
}
