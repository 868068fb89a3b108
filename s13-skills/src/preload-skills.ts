/**
 * Skills a kind of subagent starts with. A subagent definition (s12's agent file) may list skills
 * in its frontmatter, as Claude Code's do; each child of that kind has their bodies in its system
 * prompt from its first turn. A child has no skill tool and no list of its own: it sees the
 * conversation's skills only through what its definition preloads, never the parent's list.
 * Preloading gives the instructions only: the skill's allowed-tools stay with the parent's runs.
 *
 *     ---
 *     name: releaser
 *     description: Writes release notes.
 *     skills: [release-notes]              # or one line split at commas
 *     ---
 */
import { basename, join } from "node:path";
import { readProjectFile } from "@harness/s02-tool-dispatch";
import { harnessHome } from "@harness/s05-permissions";
import { type AgentDefinition, readFrontmatter, subagentSystem } from "@harness/s12-subagents";
import type { LoadedSkills } from "./discover-skills.ts";
import { loadedText } from "./skills.ts";

/**
 * The `definitions` with each one's listed skills in its system prompt; a name that is no skill
 * found is left out, said in a line. Contract: never throws; a file that cannot be read again preloads nothing.
 */
export function preloadSkills(
  definitions: readonly AgentDefinition[],
  found: LoadedSkills,
  { cwd, say }: { cwd: string; say(line: string): void },
): AgentDefinition[] {
  return definitions.map((definition) => {
    const listed = listedSkills(definition, cwd);
    if (listed.length === 0) return definition;
    const bodies = listed.flatMap((name) => {
      const skill = found.skills.find((one) => one.name === name);
      if (skill) return [loadedText(skill, undefined)];
      say(`agents: ${definition.file}: skills: there is no skill "${name}"; left out`);
      return [];
    });
    if (bodies.length === 0) return definition;
    const prompt = definition.prompt ?? subagentSystem(cwd);
    return { ...definition, prompt: [prompt, "Skills loaded for you:", ...bodies].join("\n\n") };
  });
}

/** The `skills` field of a definition's file (a list, or one line split at commas); none when absent. */
export function listedSkills(definition: AgentDefinition, cwd: string): string[] {
  if (!definition.file) return [];
  const path =
    definition.source === "user"
      ? join(harnessHome(), "agents", basename(definition.file))
      : join(cwd, definition.file);
  try {
    const read = readFrontmatter(readProjectFile(path), "the prompt");
    const value = typeof read === "string" ? undefined : read.fields.skills;
    const names = typeof value === "string" ? value.split(",") : Array.isArray(value) ? value : [];
    return names
      .filter((name): name is string => typeof name === "string")
      .map((name) => name.trim())
      .filter(Boolean);
  } catch {
    return [];
  }
}
