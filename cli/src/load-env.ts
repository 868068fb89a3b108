/**
 * The environment a chapter reads: the shell's variables over those of `.env` at the repository
 * root. `.env` is parsed, never loaded into `process.env`, so the shell always wins and nothing
 * leaks into the commands the bash tool runs.
 *
 * An empty variable counts as unset, in the shell and in `.env` alike: `ANTHROPIC_API_KEY=` in the
 * shell gives no key, and `.env` is read as if the shell had said nothing (use `--offline` to run
 * without the key `.env` holds). `.env.example` ships with `ANTHROPIC_API_KEY=` for that reason.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "dotenv";

/** The repository root (where `.env` lives). */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Variables and where each came from. */
export interface LoadedEnv {
  /** Merged values: the shell wins over `.env`. */
  values: Record<string, string | undefined>;
  /** The shell's variables that are set (not empty). */
  shell: Record<string, string>;
  /** The `.env` file's variables that are set (not empty); none when there is no file. */
  file: Record<string, string>;
  /** Where a variable was read from: "the shell" or the `.env` path. */
  sourceOf(name: string): string | undefined;
}

/** Merge `.env` (when present) under the shell's variables. */
export function loadEnv(shell: NodeJS.ProcessEnv = process.env, envFile = join(REPO_ROOT, ".env")): LoadedEnv {
  const file = setOnly(existsSync(envFile) ? parse(readFileSync(envFile)) : {});
  const fromShell = setOnly(shell);
  const values: Record<string, string | undefined> = { ...file, ...fromShell };
  return {
    values,
    shell: fromShell,
    file,
    sourceOf(name) {
      if (name in fromShell) return "the shell";
      if (name in file) return envFile;
      return undefined;
    },
  };
}

/** The variables with a value: an empty (or blank) one is unset. */
function setOnly(variables: Record<string, string | undefined>): Record<string, string> {
  const set: Record<string, string> = {};
  for (const [name, value] of Object.entries(variables)) {
    if (value !== undefined && value.trim() !== "") set[name] = value;
  }
  return set;
}
