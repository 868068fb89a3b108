/**
 * The honest boundary: evasions that users of real harnesses reported against permission rules,
 * each with the decision this engine makes in default mode and in bypassPermissions.
 *
 * - `engine`: denied in every mode; the parser sees the command or the file.
 * - `asks`: the engine cannot prove what it runs, so every mode asks, bypassPermissions included.
 * - `os`: a program the engine lets run (by an allow rule, or by bypassPermissions) does the
 *   forbidden thing itself; only an operating-system boundary stops it.
 *
 * The rules are a plausible user's, given on the command line: common programs allowed, `rm` and force-pushes denied.
 * Reports: anthropics/claude-code #15586, #15763 (chained), #38119 (newlines and comments), #92542
 * (wrappers), #31558 (env prefix), #18613 (reordered flags), #70369 (groups, process substitution,
 * shell writes), #6002 (a denied .env read through cat).
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { decide, loadPermissionSettings } from "../src/index.ts";
import { EVASIONS, type StoppedBy } from "./evasions.ts";
import { bash } from "./temp-project.ts";

describe("the honest boundary", () => {
  const permissions = {
    allow: [
      "Bash(git:*)",
      "Bash(echo:*)",
      "Bash(printf:*)",
      "Bash(cat:*)",
      "Bash(grep:*)",
      "Bash(find:*)",
      "Bash(xargs:*)",
      "Bash(python3:*)",
      "Bash(tar:*)",
      "Bash(npm:*)",
      "Bash(docker:*)",
    ],
    deny: ["Bash(rm:*)", "Bash(git push --force:*)", "Bash(npm publish:*)", "Bash(docker rm:*)"],
  };
  // one project for the whole table: its files must outlive each test
  const cwd = mkdtempSync(join(tmpdir(), "s05-boundary-"));
  afterAll(() => rmSync(cwd, { recursive: true, force: true }));
  mkdirSync(join(cwd, "build"));
  writeFileSync(join(cwd, ".env"), "KEY=1\n");
  writeFileSync(join(cwd, "clean.txt"), "rm -rf build\n");
  symlinkSync(join(cwd, ".env"), join(cwd, "notes.txt"));
  // the user's own rules (as --allow and --deny give them): no project file to trust
  const settings = loadPermissionSettings(cwd, permissions);
  if (settings instanceof Error) throw settings;

  it.each(EVASIONS.map((e) => [e.what, e] as const))("%s", (_what, evasion) => {
    expect({
      default: decide(bash(evasion.line), settings, "default", cwd).behavior,
      bypass: decide(bash(evasion.line), settings, "bypassPermissions", cwd).behavior,
    }).toEqual({ default: evasion.default, bypass: evasion.bypass });
  });

  it("says which evasions only an operating-system boundary stops", () => {
    const counts = { engine: 0, asks: 0, os: 0 };
    for (const evasion of EVASIONS) counts[evasion.stoppedBy]++;
    // the table's own bookkeeping: a row's label agrees with its decisions
    for (const evasion of EVASIONS) {
      const label: StoppedBy = evasion.bypass === "deny" ? "engine" : evasion.bypass === "ask" ? "asks" : "os";
      expect(label, evasion.what).toBe(evasion.stoppedBy);
    }
    expect(counts).toEqual({ engine: 42, asks: 49, os: 10 });
  });
});
