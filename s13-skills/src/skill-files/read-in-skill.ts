/** Where a read lands when its path lies inside a skill's folder (s13's `Skills.rootReads`). */
import { isAbsolute, relative, resolve } from "node:path";
import type { Skill } from "../discover-skills.ts";

/**
 * A read of a path inside a skill's folder, as a read of the folder's own: its input with the path
 * made relative to the folder, and the folder as the working directory. Undefined for any other path.
 */
export function readInSkill(
  skills: readonly Skill[],
  input: unknown,
  cwd: string,
): { input: unknown; cwd: string } | undefined {
  if (input === null || typeof input !== "object") return undefined;
  const { path } = input as { path?: unknown };
  if (typeof path !== "string") return undefined;
  const absolute = resolve(cwd, path);
  for (const skill of skills) {
    const inside = relative(skill.dir, absolute);
    if (inside.startsWith("..") || isAbsolute(inside)) continue;
    return { input: { ...input, path: inside === "" ? "." : inside }, cwd: skill.dir };
  }
  return undefined;
}
