/**
 * The environment a chapter reads: the shell's variables over those of `.env` at the repository
 * root. `.env` is parsed, never loaded into `process.env`, so the shell always wins and nothing
 * leaks into the commands the bash tool runs.
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
  /** Where a variable was read from: "the shell" or the `.env` path. */
  sourceOf(name: string): string | undefined;
}

/** Merge `.env` (when present) under the shell's variables. */
export function loadEnv(shell: NodeJS.ProcessEnv = process.env, envFile = join(REPO_ROOT, ".env")): LoadedEnv {
  const fromFile = existsSync(envFile) ? parse(readFileSync(envFile)) : {};
  const values: Record<string, string | undefined> = { ...fromFile };
  for (const [name, value] of Object.entries(shell)) {
    if (value !== undefined && value !== "") values[name] = value;
  }
  return {
    values,
    sourceOf(name) {
      if (shell[name]) return "the shell";
      if (fromFile[name]) return envFile;
      return undefined;
    },
  };
}
