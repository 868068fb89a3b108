/**
 * One `SKILL.md` read as the Agent Skills format writes it: YAML frontmatter between two `---`
 * lines, then the body in Markdown, read as s12 reads an agent file (`readFrontmatter`, a real YAML
 * parser): skills are written by hand and copied from elsewhere, with quotes, lists and folded lines.
 *
 *     ---
 *     name: release-notes                  # lowercase letters, digits and hyphens; the folder's name
 *     description: Writes release notes from the git log; use it when asked for release notes.
 *     allowed-tools: Bash(git log:*) Read  # optional: run without asking while the skill is active
 *     disable-model-invocation: true       # optional: only the user can invoke it (/release-notes)
 *     ---
 *     # Release notes
 *     1. Run `git log --oneline` ...
 *
 * The format's other fields (`license`, `compatibility`, `metadata`) and Claude Code's own
 * (`argument-hint`, `model`, `context`, `agent`, `user-invocable`, `hooks`, ...) are read and
 * ignored: a skill written for another harness still loads here.
 */
import { readProjectFile } from "@harness/s02-tool-dispatch";
import { readFrontmatter } from "@harness/s12-subagents";

/** Longest `name` the format allows. */
export const MAX_NAME_LENGTH = 64;

/** Longest `description` the format allows. */
export const MAX_DESCRIPTION_LENGTH = 1024;

/** What a `SKILL.md` says, once it passed the format's rules. */
export interface SkillFile {
  name: string;
  /** What it does and when to use it: offered to the model, one line. */
  description: string;
  /** The instructions, loaded only when the skill is used. */
  body: string;
  /** Permission rules (s05's syntax) its tools run by without asking while it is active; none when absent. */
  allowedTools: string[];
  /** True when only the user may invoke it: it is left out of the model's list. */
  disableModelInvocation: boolean;
}

/**
 * Read the `SKILL.md` at `path` (s02's `readProjectFile`: a regular file of at most 1 MiB, so a
 * pipe a cloned project ships cannot freeze the start) as `readSkill` does, or why it was not read.
 * Contract: never throws.
 */
export function readSkillFile(path: string, folder: string): SkillFile | string {
  try {
    return readSkill(readProjectFile(path), folder);
  } catch (error) {
    return `not read (${(error as Error).message})`;
  }
}

/**
 * Read `text`, the `SKILL.md` of a folder named `folder`: the skill, or the first rule of the
 * format it breaks, in a few words. Contract: never throws.
 */
export function readSkill(text: string, folder: string): SkillFile | string {
  const read = readFrontmatter(text, "the instructions");
  if (typeof read === "string") return read;
  const record = read.fields;
  const { name, description } = record;
  if (name === undefined) return "name: missing";
  if (typeof name !== "string" || name === "") return "name: not a text";
  if (name.length > MAX_NAME_LENGTH) return `name: longer than ${MAX_NAME_LENGTH} characters`;
  if (!/^[a-z0-9-]+$/.test(name)) return "name: lowercase letters, digits and hyphens only";
  if (name.startsWith("-") || name.endsWith("-") || name.includes("--")) {
    return "name: a hyphen neither first, last, nor twice in a row";
  }
  if (name !== folder) return `name: "${name}" is not the folder's name "${folder}"`;
  if (typeof description !== "string" || description.trim() === "") return "description: missing or empty";
  if (description.length > MAX_DESCRIPTION_LENGTH) {
    return `description: longer than ${MAX_DESCRIPTION_LENGTH} characters`;
  }
  const allowed = readAllowedTools(record["allowed-tools"]);
  if (typeof allowed === "string") return allowed;
  const disable = record["disable-model-invocation"];
  if (disable !== undefined && typeof disable !== "boolean") return "disable-model-invocation: true or false";
  return {
    name,
    description: description.trim().replace(/\s+/g, " "),
    body: read.body.trim(),
    allowedTools: allowed,
    disableModelInvocation: disable === true,
  };
}

/**
 * `allowed-tools` as the format writes it (one line, rules split at spaces) or as Claude Code
 * also takes it (split at commas, or a YAML list): the rules, each kept whole (`Bash(git log:*)`
 * has a space inside its parentheses).
 */
function readAllowedTools(value: unknown): string[] | string {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value) && value.every((item) => typeof item === "string")) {
    return value.map((item) => item.trim()).filter((item) => item !== "");
  }
  if (typeof value !== "string") return "allowed-tools: one line of rules, or a list of them";
  const rules: string[] = [];
  let depth = 0;
  let word = "";
  for (const char of value) {
    if (char === "(") depth++;
    if (char === ")") depth = Math.max(0, depth - 1);
    if (depth === 0 && (char === " " || char === "," || char === "\t")) {
      if (word !== "") rules.push(word);
      word = "";
    } else word += char;
  }
  if (word !== "") rules.push(word);
  return rules;
}
