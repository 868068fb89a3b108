/**
 * A chapter's `main.ts` is both a program (`pnpm sNN`) and a module its tests import: these say
 * which it is, and give it the process's own streams when no test passes its own.
 */
import { realpathSync } from "node:fs";
import type { CliIo } from "./chapter-cli.ts";

/** The process's own streams and environment. */
export function processIo(): CliIo {
  return { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env };
}

/**
 * True when `moduleFile` (a module's `import.meta.filename`) is the program node runs, not a
 * module a test imports.
 */
export function isProgram(moduleFile: string): boolean {
  try {
    return process.argv[1] !== undefined && realpathSync(process.argv[1]) === realpathSync(moduleFile);
  } catch {
    return false;
  }
}
