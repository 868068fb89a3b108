/**
 * zod, loaded the first time a file is checked against its shape rather than when the harness
 * starts: a run with no settings file (no hooks, no transcript to read back) never loads its ~95
 * modules before its first request. `require`, because a settings file is read synchronously.
 */
import { createRequire } from "node:module";

/** zod's `z`: what a shape is built with. */
export type Zod = typeof import("zod").z;

/** zod's `z`, loaded on the first call (later calls get the module Node already holds). */
export function loadZod(): Zod {
  return createRequire(import.meta.url)("zod").z;
}
