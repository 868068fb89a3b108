/**
 * A fresh working directory per test (its real path, so links compare equal), removed when the
 * test that made it ends (made in a describe's body: when that suite ends).
 */
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cleanUpAfter } from "@harness/testkit";

/** Make an empty directory under the system's temp directory; it is removed after the test. */
export function tempWorkdir(prefix = "s03-"): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  cleanUpAfter(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
