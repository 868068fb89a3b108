/**
 * Kinds of subagent, written down in Claude Code's agent-file shape: a Markdown file whose YAML
 * frontmatter names the kind and says when to use it, and may narrow its tools and pick its model;
 * the body is the child's system prompt.
 *
 *     ---
 *     name: explorer
 *     description: Finds where things are in the code; use it for a search over many files.
 *     tools: read_file, glob, grep          # a list, or one line split at commas; Read, Glob, Grep too
 *     model: claude-haiku-4-5               # absent or "inherit": the parent's model
 *     ---
 *     You search code and report what you found, with paths and line numbers. ...
 *
 * They are read from `.harness/agents/*.md` (the project's) and `~/.harness/agents/*.md` (the
 * user's, under HARNESS_HOME when it is set); a project's kind wins over a user's of the same name,
 * and either over the built-in `general-purpose`. The project's came with the clone: they apply only
 * once the user trusts them, by s05's one trust rule (`shippedAgents` is what is trusted), in the
 * same question as the project's rules and hooks. A file that is not one (no frontmatter, YAML that
 * does not parse, a field missing or of the wrong type, an empty body) is one warning line and is
 * skipped; the others load. The frontmatter is read with a real YAML parser (`yaml`): agent files
 * are written by hand and copied from elsewhere, with quotes, lists and folded lines in them.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { readProjectFile } from "@harness/s02-tool-dispatch";
import { CLAUDE_CODE_TOOL_NAMES, type Shipped } from "@harness/s05-permissions";
import { parse as parseYaml } from "yaml";

/** The task tool's name (Claude Code's Agent tool, here as the model calls it). */
export const TASK = "task";

/** One kind of subagent. */
export interface AgentDefinition {
  /** What `subagent_type` names it by. */
  name: string;
  /** When to use it: the task tool's description lists it, for the model to choose by. */
  description: string;
  /** The tools its children get, in the course's names (none given: every tool a child may have). */
  tools?: string[];
  /** The model its children talk to (none: the parent's). */
  model?: string;
  /** Its children's system prompt (none: the built-in one, `subagentSystem`). */
  prompt?: string;
  /** Where it was written: the project's `.harness/agents/`, the user's, or here. */
  source: "project" | "user" | "built-in";
  /** Its file, as the warning lines name it (`.harness/agents/explorer.md`). */
  file?: string;
}

/** The kind a task call without `subagent_type` starts. */
export const GENERAL_PURPOSE: AgentDefinition = {
  name: "general-purpose",
  description:
    "the default: a copy of you with your tools but this one, for a search over many files or any task of several steps whose steps you do not need to see",
  source: "built-in",
};

/** Where the project's definitions are, inside the working directory. */
export const PROJECT_AGENTS = join(".harness", "agents");

/** The system prompt of a child whose kind gives none. */
export function subagentSystem(cwd: string): string {
  return (
    `You are a subagent of a coding agent working in ${cwd}: it handed you one task, the message below. ` +
    "Do it with the tools, on your own: no one will answer a question. Then end with a final report: your " +
    "last message is all the agent that sent you will read, so put in it everything it needs (what you " +
    "found, where, what you could not do) and nothing it does not. Be brief."
  );
}

/** The definitions found, and one line per file skipped or field left out. */
export interface LoadedDefinitions {
  /** Every file that read as a definition: the user's, then the project's. */
  found: AgentDefinition[];
  problems: string[];
}

/**
 * Read the definitions of the project in `cwd` and of the user (`home`: the harness's own
 * directory). `tools` are the names a child may be given (a name outside them is left out, with a
 * line); `task` among them lets a definition give its children children of their own.
 * Contract: never throws; a missing directory is no definitions.
 */
export function loadAgentDefinitions(cwd: string, home: string, tools: readonly string[]): LoadedDefinitions {
  const problems: string[] = [];
  const found: AgentDefinition[] = [];
  // the user's first, then the project's over them: the project's kind of the same name wins
  const places = [
    { dir: join(home, "agents"), shown: "~/.harness/agents", source: "user" as const },
    { dir: join(cwd, PROJECT_AGENTS), shown: PROJECT_AGENTS, source: "project" as const },
  ];
  for (const { dir, shown, source } of places) {
    const named = new Set<string>();
    for (const name of markdownFiles(dir)) {
      const file = join(shown, name);
      let read: ReturnType<typeof readDefinition>;
      try {
        read = readDefinition(readProjectFile(join(dir, name)), tools);
      } catch (error) {
        read = `not read (${(error as Error).message})`;
      }
      if (typeof read === "string") {
        problems.push(`agents: ${file}: ${read}; skipped`);
        continue;
      }
      if (named.has(read.definition.name)) {
        problems.push(`agents: ${file}: the name "${read.definition.name}" is taken by another file here; skipped`);
        continue;
      }
      named.add(read.definition.name);
      for (const note of read.notes) problems.push(`agents: ${file}: ${note}`);
      found.push({ ...read.definition, source, file });
    }
  }
  return { found, problems };
}

/**
 * The kinds a task call chooses from: `general-purpose`, the user's, and the project's over them
 * when `projectTrusted` (else the project's are left out); `general-purpose` first, then by name.
 */
export function definitionsInForce(loaded: LoadedDefinitions, projectTrusted: boolean): AgentDefinition[] {
  const kinds = new Map<string, AgentDefinition>([[GENERAL_PURPOSE.name, GENERAL_PURPOSE]]);
  for (const definition of loaded.found) {
    if (definition.source === "project" && !projectTrusted) continue;
    kinds.set(definition.name, definition);
  }
  return [...kinds.values()].sort(
    (a, b) => Number(b === GENERAL_PURPOSE) - Number(a === GENERAL_PURPOSE) || a.name.localeCompare(b.name),
  );
}

/**
 * The project's definitions as s05's trust rule weighs them (kind `agents`): a system prompt, tools
 * and a model a clone chose, run as the user. Their hash covers every field, so an edit asks again.
 */
export function shippedAgents(loaded: LoadedDefinitions): Shipped {
  const project = loaded.found.filter((definition) => definition.source === "project");
  const tools = (d: AgentDefinition) => (d.tools ? `tools ${d.tools.join(", ") || "none"}` : "every tool");
  return {
    kind: "agents",
    definitions: project,
    lines: project.map((d) => `agent ${d.name}: ${tools(d)}${d.model ? `, model ${d.model}` : ""}   (${d.file})`),
    summary:
      project.length === 0
        ? ""
        : `${project.length} agent definition${project.length === 1 ? "" : "s"} in ${PROJECT_AGENTS}`,
  };
}

/**
 * One file's text read as a definition (`source` still to be set), with a note per tool it names
 * that a child cannot have; or what is wrong with it, in a few words.
 */
export function readDefinition(
  text: string,
  tools: readonly string[],
): { definition: Omit<AgentDefinition, "source">; notes: string[] } | string {
  const read = readFrontmatter(text, "the prompt");
  if (typeof read === "string") return read;
  const { fields, body } = read;
  const { name, description, tools: listed, model } = fields;
  if (typeof name !== "string" || !/^[a-z0-9][a-z0-9_-]*$/.test(name)) {
    return name === undefined ? "name: missing" : "name: lower-case letters, digits, - and _ only";
  }
  if (typeof description !== "string" || description.trim() === "") return "description: missing or empty";
  if (listed !== undefined && typeof listed !== "string" && !isTextList(listed)) {
    return "tools: a list of tool names, or one line of them split at commas";
  }
  if (model !== undefined && (typeof model !== "string" || model.trim() === "")) return "model: not a model id";
  const prompt = body.trim();
  if (prompt === "") return "the body (the subagent's system prompt) is empty";
  const notes: string[] = [];
  let named: string[] | undefined;
  if (listed !== undefined) {
    const known = (typeof listed === "string" ? listed.split(",") : listed)
      .map((tool) => tool.trim())
      .filter((tool) => tool !== "")
      .map((tool) => ({ tool, name: courseName(tool, tools) }));
    const unknown = known.filter((k) => k.name === undefined).map((k) => k.tool);
    if (unknown.length > 0) notes.push(`tools a subagent cannot have here, left out: ${unknown.join(", ")}`);
    named = [...new Set(known.flatMap((k) => (k.name === undefined ? [] : [k.name])))];
  }
  return {
    definition: {
      name,
      description: description.trim().replace(/\s+/g, " "),
      ...(named ? { tools: named } : {}),
      ...(typeof model === "string" && model.trim() !== "inherit" ? { model: model.trim() } : {}),
      prompt,
    },
    notes,
  };
}

/** A tool as a definition names it, in the course's name: `read_file` or Claude Code's `Read`; `Task` or `Agent` for task. */
function courseName(tool: string, tools: readonly string[]): string | undefined {
  if (tools.includes(tool)) return tool;
  if (tool === "Task" || tool === "Agent") return tools.includes(TASK) ? TASK : undefined;
  const names: Readonly<Record<string, string>> = CLAUDE_CODE_TOOL_NAMES;
  const course = Object.keys(names).find((key) => names[key] === tool);
  return course !== undefined && tools.includes(course) ? course : undefined;
}

function isTextList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

function markdownFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  try {
    return readdirSync(dir)
      .filter((name) => name.endsWith(".md"))
      .sort();
  } catch {
    return [];
  }
}

/**
 * A file written as YAML frontmatter between two `---` lines, then a Markdown body (an agent
 * definition here, a skill in s13): its fields and its body, or what is wrong, in a few words
 * (`body` names what follows the fields, for the message). The fields are read with a real YAML
 * parser: such files are written by hand and copied from elsewhere, with quotes, lists and folded lines.
 */
export function readFrontmatter(
  text: string,
  body: string,
): { fields: Record<string, unknown>; body: string } | string {
  const match = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)([\s\S]*)$/.exec(text);
  if (!match) return `no frontmatter (a --- line, the fields, a --- line, then ${body})`;
  let fields: unknown;
  try {
    fields = parseYaml(match[1]);
  } catch (error) {
    return `the frontmatter is not YAML (${(error as Error).message.split("\n")[0]})`;
  }
  if (fields === null || typeof fields !== "object" || Array.isArray(fields)) {
    return "the frontmatter is not a set of fields";
  }
  return { fields: fields as Record<string, unknown>, body: match[2] };
}
