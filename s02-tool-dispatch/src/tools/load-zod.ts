/**
 * zod, loaded the first time a shape is checked. This chapter's tools need none (their input is
 * checked by a JSON Schema validator); the files later chapters read (settings, hook output,
 * transcript lines) are checked against zod shapes built with it.
 */
import { createRequire } from "node:module";

/** zod's `z`: what a shape is built with. */
export type Zod = typeof import("zod").z;

/**
 * zod's `z`, loaded on the first call (later calls get the module Node already holds): a run that
 * reads none of those files never loads its ~95 modules. `require`, because a check is synchronous.
 */
export function loadZod(): Zod {
  return createRequire(import.meta.url)("zod").z;
}
