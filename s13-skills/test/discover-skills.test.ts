import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cleanUpAfter } from "@harness/testkit";
import { describe, expect, it } from "vitest";
import { discoverSkills } from "../src/discover-skills.ts";

/** A project and a home with these skill folders (`name` → SKILL.md text), removed after the test. */
function places(project: Record<string, string>, user: Record<string, string> = {}) {
  const root = mkdtempSync(join(tmpdir(), "s13-skills-"));
  cleanUpAfter(() => rmSync(root, { recursive: true, force: true }));
  const cwd = join(root, "project");
  const home = join(root, "home");
  for (const [dir, skills] of [
    [join(cwd, ".harness", "skills"), project],
    [join(home, "skills"), user],
  ] as const) {
    for (const [name, text] of Object.entries(skills)) {
      mkdirSync(join(dir, name), { recursive: true });
      writeFileSync(join(dir, name, "SKILL.md"), text);
    }
  }
  return { cwd, home, root };
}

const skill = (name: string, description = `What ${name} does.`) =>
  `---\nname: ${name}\ndescription: ${description}\n---\nThe body of ${name}.\n`;

describe("discoverSkills", () => {
  it("finds the project's and the user's skills, each with its folder, by name", () => {
    const { cwd, home } = places({ deploy: skill("deploy") }, { "code-review": skill("code-review") });
    const { skills, problems } = discoverSkills(cwd, home);
    expect(problems).toEqual([]);
    expect(skills.map((s) => [s.name, s.source, s.file])).toEqual([
      ["code-review", "user", "~/.harness/skills/code-review/SKILL.md"],
      ["deploy", "project", ".harness/skills/deploy/SKILL.md"],
    ]);
    expect(skills[1].dir).toBe(join(cwd, ".harness", "skills", "deploy"));
  });

  it("lets the project's skill win a name clash, and says so in one line", () => {
    const { cwd, home } = places({ deploy: skill("deploy", "The project's.") }, { deploy: skill("deploy", "Mine.") });
    const { skills, problems } = discoverSkills(cwd, home);
    expect(skills.map((s) => s.description)).toEqual(["The project's."]);
    expect(problems).toEqual([
      'skills: .harness/skills/deploy/SKILL.md is used; the user\'s skill "deploy" (~/.harness/skills/deploy/SKILL.md) is not',
    ]);
  });

  it("skips a broken skill with one line naming its file and the rule, and loads the others", () => {
    const { cwd, home } = places({
      good: skill("good"),
      Bad: skill("Bad"),
      mismatch: skill("other"),
      bare: "no frontmatter\n",
    });
    const { skills, problems } = discoverSkills(cwd, home);
    expect(skills.map((s) => s.name)).toEqual(["good"]);
    expect(problems).toEqual([
      "skills: .harness/skills/Bad/SKILL.md: name: lowercase letters, digits and hyphens only; skipped",
      "skills: .harness/skills/bare/SKILL.md: no frontmatter (a --- line, the fields, a --- line, then the instructions); skipped",
      'skills: .harness/skills/mismatch/SKILL.md: name: "other" is not the folder\'s name "mismatch"; skipped',
    ]);
  });

  it("passes by a folder without SKILL.md and a file beside the folders without a word; no folder is no skills", () => {
    const { cwd, home } = places({ good: skill("good") });
    mkdirSync(join(cwd, ".harness", "skills", "assets"));
    writeFileSync(join(cwd, ".harness", "skills", "README.md"), "# skills\n");
    expect(discoverSkills(cwd, home)).toEqual(expect.objectContaining({ problems: [] }));
    expect(discoverSkills(join(cwd, "nowhere"), join(home, "nowhere"))).toEqual({ skills: [], problems: [] });
  });

  it("follows a skill folder that is a link (a skill shared between projects)", () => {
    const { cwd, home, root } = places({});
    mkdirSync(join(root, "shared", "lint"), { recursive: true });
    writeFileSync(join(root, "shared", "lint", "SKILL.md"), skill("lint"));
    mkdirSync(join(cwd, ".harness", "skills"), { recursive: true });
    symlinkSync(join(root, "shared", "lint"), join(cwd, ".harness", "skills", "lint"));
    expect(discoverSkills(cwd, home).skills.map((s) => s.name)).toEqual(["lint"]);
  });
});
