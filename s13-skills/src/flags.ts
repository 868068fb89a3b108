/**
 * s13's option, and what it builds: `--no-skills` (none found, none offered: the chapter runs as
 * s12); the skills read once as the session starts, each broken one said in a line; the project's
 * skills that widen what runs, as s05's trust rule weighs them; and `/NAME` for the user in the REPL.
 */
import type { CliOptions, ExtraOption, ReplCommand } from "@harness/cli";
import { harnessHome, isRuleSyntaxError, parseRule, type Shipped } from "@harness/s05-permissions";
import { discoverSkills, type LoadedSkills, PROJECT_SKILLS } from "./discover-skills.ts";
import type { Skills } from "./skills.ts";

/** Skills off, for a run that compares. */
export const SKILL_FLAGS: readonly ExtraOption[] = [
  {
    name: "no-skills",
    type: "boolean",
    help: "--no-skills         find no skills: none offered to the model, no skill tool, no /NAME",
  },
];

/**
 * The skills of the project in `options.cwd` and of the user (none with `--no-skills`), each line
 * about one that did not load said with `say`, and each rule in allowed-tools that s05 cannot read
 * left out with a line. Contract: never throws.
 */
export function readSkills(options: CliOptions, say: (line: string) => void): LoadedSkills {
  if (options.extra["no-skills"] === true) return { skills: [], problems: [] };
  const loaded = discoverSkills(options.cwd, harnessHome());
  const skills = loaded.skills.map((skill) => {
    const bad = skill.allowedTools.filter((text) => isRuleSyntaxError(parseRule(text)));
    if (bad.length === 0) return skill;
    loaded.problems.push(`skills: ${skill.file}: allowed-tools: not rules here, left out: ${bad.join(", ")}`);
    return { ...skill, allowedTools: skill.allowedTools.filter((text) => !bad.includes(text)) };
  });
  loaded.problems.forEach(say);
  return { skills, problems: loaded.problems };
}

/**
 * The project's skills as s05's trust rule weighs them (kind `skills`): those whose allowed-tools
 * would run commands as the user without a question. A skill without allowed-tools widens nothing
 * (its body is text the model reads, like a README) and is not asked about. The hash covers the
 * body too: the instructions say what the allowed tools are used for.
 */
export function shippedSkills(loaded: LoadedSkills): Shipped {
  const widening = loaded.skills.filter((skill) => skill.source === "project" && skill.allowedTools.length > 0);
  return {
    kind: "skills",
    definitions: widening.map(({ name, allowedTools, body }) => ({ name, allowedTools, body })),
    lines: widening.map(
      (skill) => `skill ${skill.name}: allowed-tools ${skill.allowedTools.join(" ")}   (${skill.file})`,
    ),
    summary:
      widening.length === 0
        ? ""
        : `allowed-tools of ${widening.length} skill${widening.length === 1 ? "" : "s"} in ${PROJECT_SKILLS}`,
  };
}

/**
 * `/NAME args` for each skill, for the user: the skill's body, loaded as the prompt sent in the
 * line's place (a skill with `disable-model-invocation` too: that field keeps out only the model).
 * A name a command of the chapter already has is left to that command.
 */
export function skillCommands(skills: Skills, taken: readonly string[]): ReplCommand[] {
  return skills.all
    .filter((skill) => !taken.includes(skill.name))
    .map((skill) => ({
      name: skill.name,
      help: `/${skill.name} [args]`,
      run: async (args: string) => {
        const loaded = skills.load(skill.name, args, "user");
        return `/${skill.name}${args === "" ? "" : ` ${args}`}\n\n${loaded.content}`;
      },
    }));
}
