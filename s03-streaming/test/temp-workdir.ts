/**
 * A fresh working directory per test (its real path, so links compare equal), removed once the
 * test file is done: after all its tests, so tests that run concurrently keep their directories.
 */
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

const created: string[] = [];
afterAll(() => {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Make an empty directory under the system's temp directory; it is removed after the test file. */
export function tempWorkdir(prefix = "s03-"): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  created.push(dir);
  return dir;
}
