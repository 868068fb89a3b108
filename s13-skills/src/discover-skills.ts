/**
 * Where skills are found: one folder per skill, its instructions in `SKILL.md`.
 *
 *     .harness/skills/NAME/SKILL.md      the project's (it came with the clone)
 *     ~/.harness/skills/NAME/SKILL.md    the user's (under $HARNESS_HOME when it is set)
 *
 * Both are read once, as the session starts: the list offered to the model is part of the cached
 * prefix (s10), and a skill that appeared mid-session would change it. A project's skill wins
 * over the user's of the same name, and one line says so. A folder whose `SKILL.md` breaks the
 * format is one line naming its path and the rule it breaks; the others load, and the run goes on.
 * A folder without a `SKILL.md` is not a skill and is passed by without a word (it may hold a
 * skill's files). Left out: skills in nested folders, plugins and managed settings, which Claude
 * Code also reads.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { readSkillFile, type SkillFile } from "./skill-files/read-skill.ts";

/** Where the project's skills are, inside the working directory. */
export const PROJECT_SKILLS = join(".harness", "skills");

/** The file that makes a folder a skill. */
export const SKILL_FILE = "SKILL.md";

/** A skill found and valid. */
export interface Skill extends SkillFile {
  /** The project's (`.harness/skills`) or the user's (`~/.harness/skills`). */
  source: "project" | "user";
  /** Its folder, absolute: the model reads the files its body names from here. */
  dir: string;
  /** Its `SKILL.md` as lines to the user name it (`.harness/skills/deploy/SKILL.md`). */
  file: string;
}

/** The skills found, and one line for each skill that did not load or lost to another. */
export interface LoadedSkills {
  /** By name: the project's over the user's; sorted by name. */
  skills: Skill[];
  problems: string[];
}

/**
 * Find the skills of the project in `cwd` and of the user (`home`: the harness's own directory).
 * Contract: never throws; a missing folder is no skills.
 */
export function discoverSkills(cwd: string, home: string): LoadedSkills {
  const problems: string[] = [];
  const byName = new Map<string, Skill>();
  // the user's first, then the project's over them: the project's skill of the same name wins
  const places = [
    { root: join(home, "skills"), shown: "~/.harness/skills", source: "user" as const },
    { root: join(cwd, PROJECT_SKILLS), shown: PROJECT_SKILLS, source: "project" as const },
  ];
  for (const { root, shown, source } of places) {
    for (const folder of skillFolders(root)) {
      const dir = join(root, folder);
      const file = join(shown, folder, SKILL_FILE);
      const read = readSkillFile(join(dir, SKILL_FILE), folder);
      if (typeof read === "string") {
        problems.push(`skills: ${file}: ${read}; skipped`);
        continue;
      }
      const mine = byName.get(read.name);
      if (mine) problems.push(`skills: ${file} is used; the user's skill "${read.name}" (${mine.file}) is not`);
      byName.set(read.name, { ...read, source, dir, file });
    }
  }
  const skills = [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
  return { skills, problems };
}

/** The folders under `root` that hold a `SKILL.md`, by name. */
function skillFolders(root: string): string[] {
  if (!existsSync(root)) return [];
  try {
    return readdirSync(root)
      .filter((name) => {
        try {
          return statSync(join(root, name, SKILL_FILE)).isFile();
        } catch {
          return false;
        }
      })
      .sort();
  } catch {
    return [];
  }
}
