/**
 * Clean-up for test helpers, made to work whether vitest runs each test file in a fresh worker or
 * many files in one (`--no-isolate`, as `pnpm test` does): a hook a helper module registers as it
 * loads runs for the first file that imports it only, as a module loads once per worker.
 */
import { afterAll, onTestFinished } from "vitest";

/**
 * Run `cleanup` when the test that calls this ends; called while a file's tests are collected (in
 * a describe's body, say), when that suite ends.
 * Contract: registers `cleanup` exactly once; a cleanup that throws fails the test (or the suite).
 */
export function cleanUpAfter(cleanup: () => unknown): void {
  let inTest = true;
  try {
    onTestFinished(async () => {
      await cleanup();
    });
  } catch {
    inTest = false; // not inside a test: there is none to finish
  }
  if (!inTest) {
    afterAll(async () => {
      await cleanup();
    });
  }
}
