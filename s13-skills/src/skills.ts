/**
 * Skills in use: offered by their descriptions, loaded by their bodies. The model sees one line per
 * skill, in the skill tool's description (see `skillDescription` for why there and not in the
 * system prompt); the body is never sent before the skill is used. The model uses one with a
 * `skill` call (`{ skill, args? }`, Claude Code's shape), the user with `/NAME args` in the REPL;
 * either way the body comes back with the skill's folder, so the model can read the files it names
 * through the normal tools, s05's rules and s06's hooks.
 *
 * While a skill is active (from its loading to the end of the run it was loaded in) its
 * `allowed-tools` join s05's rules as allow rules; the run's end takes them out again. A project's
 * skill came with the clone: its allowed-tools apply only once the project is trusted (s05's one
 * trust rule, kind `skills`); untrusted, it still loads, its instructions are only text.
 */
import type { ContentBlockParam, MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { type CallRunner, dispatch, type Tool } from "@harness/s02-tool-dispatch";
import { isRuleSyntaxError, type PermissionSettings, parseRule, type SourcedRule } from "@harness/s05-permissions";
import type { ToolResult } from "@harness/shared";
import type { Skill } from "./discover-skills.ts";
import { readInSkill } from "./skill-files/read-in-skill.ts";

/** The skill tool's name, as the model calls it. */
export const SKILL = "skill";

/** The line a loaded skill's text opens with (`loadedText`). */
const LOADED = /^Skill "([a-z0-9-]+)"\. Base directory for this skill: /m;

/** The texts of a message's block: its text, or a tool result's. */
function blockTexts(block: ContentBlockParam): string[] {
  if (block.type === "text") return [block.text];
  if (block.type !== "tool_result") return [];
  if (typeof block.content === "string") return [block.content];
  return (block.content ?? []).flatMap((part) => (part.type === "text" ? [part.text] : []));
}

/** The tools that only read: a path of theirs inside a skill's folder is read there (`rootReads`). */
const READS = ["read_file", "glob", "grep"];

/** What the model sends: Claude Code's Skill tool's fields. */
export interface SkillInput {
  /** The skill's name. */
  skill: string;
  /** What the skill is to work on, when it takes anything (`$ARGUMENTS` in its body). */
  args?: string;
}

/** Who loaded a skill. */
export type LoadedBy = "model" | "user";

/** How the skills are used. */
export interface SkillsOptions {
  /** The skills found (`discoverSkills`). */
  skills: readonly Skill[];
  /** The rules in force: a skill's allowed-tools join them while it is active. */
  settings: PermissionSettings;
  /** Whether the project's skills' allowed-tools apply: s05's trust rule said so. */
  projectTrusted: boolean;
  /** Told one line when a skill is loaded, or a rule of it is left out. */
  note?(line: string): void;
}

/** A skill loaded this session, as compaction restates it. */
export interface SkillInUse {
  skill: Skill;
  /** The text that was loaded: the body with its folder and arguments. */
  loaded: string;
}

/** The skills of one session: the tool, the user's commands, what is active and in use. */
export class Skills {
  /** Loaded this session, in the order they were first loaded. */
  readonly inUse = new Map<string, SkillInUse>();
  private granted: SourcedRule[] = [];

  constructor(private readonly options: SkillsOptions) {}

  /** Every skill found, the user's to invoke. */
  get all(): readonly Skill[] {
    return this.options.skills;
  }

  /** The skills the model may use itself: every one but those with `disable-model-invocation`. */
  get offered(): Skill[] {
    return this.options.skills.filter((skill) => !skill.disableModelInvocation);
  }

  /** The skill tool; undefined when there is no skill the model may use (nothing to offer). */
  tool(): Tool<SkillInput> | undefined {
    if (this.offered.length === 0) return undefined;
    return {
      name: SKILL,
      description: skillDescription(this.offered),
      inputSchema: {
        type: "object",
        properties: {
          skill: { type: "string", description: "The skill's name, as the list gives it" },
          args: { type: "string", description: "What the skill is to work on, if anything" },
        },
        required: ["skill"],
        additionalProperties: false,
      },
      parse: parseSkillInput,
      concurrencySafe: false, // it changes the rules in force: one at a time, in call order
      run: async (input) => this.load(input.skill, input.args, "model"),
    };
  }

  /**
   * Load a skill: its body with its folder, as the tool's result or the user's prompt; it is in use
   * from now on, and its allowed-tools apply until the run ends. Contract: never throws; an unknown
   * name, or a user-only skill asked for by the model, is an `is_error` result naming the skills there are.
   */
  load(name: string, args: string | undefined, by: LoadedBy): ToolResult {
    const known = by === "model" ? this.offered : this.options.skills;
    const skill = known.find((one) => one.name === name);
    if (!skill) {
      const user = this.options.skills.find((one) => one.name === name);
      if (user) return skillError("user_only", `the skill "${name}" is invoked only by the user (/${name}).`);
      const names = known.map((one) => one.name).join(", ") || "none";
      return skillError("unknown_skill", `there is no skill "${name}". Skills: ${names}.`);
    }
    const loaded = loadedText(skill, args);
    this.inUse.set(skill.name, { skill, loaded });
    this.grant(skill);
    return { content: loaded, isError: false };
  }

  /**
   * The skills a resumed session had loaded, found in its history (a skill call's result, or a
   * `/NAME` prompt): in use again, for compaction to restate. Their allowed-tools stay off: a skill
   * is active only in the run it was loaded in.
   */
  restore(history: readonly MessageParam[]): void {
    for (const message of history) {
      const blocks = typeof message.content === "string" ? [message.content] : message.content.flatMap(blockTexts);
      for (const block of blocks) {
        const start = block.search(LOADED);
        const name = LOADED.exec(block)?.[1];
        const skill = this.options.skills.find((one) => one.name === name);
        if (start >= 0 && skill) this.inUse.set(skill.name, { skill, loaded: block.slice(start) });
      }
    }
  }

  /** The run is over: the active skills' allowed-tools leave the rules. */
  endRun(): void {
    if (this.granted.length === 0) return;
    const granted = new Set(this.granted);
    this.options.settings.rules = this.options.settings.rules.filter((rule) => !granted.has(rule));
    this.granted = [];
  }

  /** `runCall` for every call but `skill`, which goes straight to dispatch: it reads instructions and asks nothing. */
  around(runCall: CallRunner): CallRunner {
    return (tools, call, context) =>
      call.name === SKILL ? dispatch(tools, call, context) : runCall(tools, call, context);
  }

  /**
   * The tools, with read_file, glob and grep reading a path inside a skill's folder with that folder
   * as their working directory. s02 keeps the file tools in the project and out of `.harness/`: the
   * project's skills lie there, the user's in the home. The call has gone through `runCall` first,
   * as the model sent it: s06's hooks and s05's rules judge its path against the project, like any
   * other read; only the tool, once allowed, runs in the folder. s02's confinement, pointed at the
   * folder, keeps the read inside it (a link out is refused), so nothing else of `.harness/` or the
   * home is reached. Nothing else is redirected.
   */
  rootReads(tools: readonly Tool[]): Tool[] {
    return tools.map((tool) =>
      READS.includes(tool.name)
        ? {
            ...tool,
            run: (input, context) => {
              const read = readInSkill(this.options.skills, input, context.cwd);
              return read ? tool.run(read.input, { ...context, cwd: read.cwd }) : tool.run(input, context);
            },
          }
        : tool,
    );
  }

  /** A skill's allowed-tools as allow rules in force, unless it is the project's and the project is not trusted. */
  private grant(skill: Skill): void {
    if (skill.source === "project" && !this.options.projectTrusted) return;
    const present = new Set(this.granted.map((rule) => rule.source));
    const source = `skill ${skill.name}`;
    if (present.has(source)) return;
    const rules: SourcedRule[] = [];
    for (const text of skill.allowedTools) {
      const rule = parseRule(text);
      if (!isRuleSyntaxError(rule)) rules.push({ rule, behavior: "allow", source });
    }
    this.granted.push(...rules);
    this.options.settings.rules = [...this.options.settings.rules, ...rules];
  }
}

/**
 * The skill tool's description: what a skill is, when to use one, and the list. It is the one
 * place the list goes. Not the system prompt: the list belongs to the tool that loads what it
 * offers (a loop without the tool, a child's, offers none), and a subagent definition replaces
 * the system prompt. The cache does not decide it: tools and system both lie before the messages
 * in the cached prefix (s10), and the list is read once per session, so either place stays the same
 * byte for byte from call to call.
 */
export function skillDescription(skills: readonly Skill[]): string {
  return [
    "Use a skill: a folder of instructions (and files) for one kind of task, loaded only when needed.",
    "When the task at hand matches a skill's description below, call this tool with its name first, then follow the instructions it returns.",
    "Do not guess a skill's instructions from its description; do not call it for a skill already loaded in this conversation.",
    "Skills:",
    ...skills.map((skill) => `- ${skill.name}: ${skill.description}`),
  ].join("\n");
}

/** The text a skill loads as: its folder, its body, and the arguments (in place of `$ARGUMENTS`, else after). */
export function loadedText(skill: Skill, args: string | undefined): string {
  const given = args?.trim() ?? "";
  const body = skill.body.includes("$ARGUMENTS") ? skill.body.replaceAll("$ARGUMENTS", given) : skill.body;
  const after = given !== "" && !skill.body.includes("$ARGUMENTS") ? `\n\nARGUMENTS: ${given}` : "";
  return `Skill "${skill.name}". Base directory for this skill: ${skill.dir}\n\n${body}${after}`;
}

/** Check a skill call's input: a name, and arguments when given. */
export function parseSkillInput(input: unknown): { ok: true; value: SkillInput } | { ok: false; error: string } {
  if (input === null || typeof input !== "object" || Array.isArray(input))
    return { ok: false, error: "input: expected an object" };
  const { skill, args, ...rest } = input as Record<string, unknown>;
  const extra = Object.keys(rest);
  if (extra.length > 0)
    return { ok: false, error: `unknown field${extra.length === 1 ? "" : "s"}: ${extra.join(", ")}` };
  if (typeof skill !== "string" || skill.trim() === "") return { ok: false, error: "skill: a skill's name is needed" };
  if (args !== undefined && typeof args !== "string") return { ok: false, error: "args: expected a text" };
  return { ok: true, value: { skill: skill.trim(), ...(args === undefined ? {} : { args }) } };
}

/** An error result in the form of s02's coded errors: `Error [unknown_skill]: ...`. */
export function skillError(code: string, message: string): ToolResult {
  return { content: `Error [${code}]: ${message}`, isError: true };
}
