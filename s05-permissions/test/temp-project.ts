/** A project directory for one test: files, and settings in .harness/, removed after the test. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { cleanUpAfter } from "@harness/testkit";
import { type CliRules, loadPermissionSettings, type PermissionSettings } from "../src/index.ts";

/** A fresh directory holding `files` (path → text). */
export function tempProject(files: Record<string, string> = {}): string {
  const cwd = mkdtempSync(join(tmpdir(), "s05-"));
  cleanUpAfter(() => rmSync(cwd, { recursive: true, force: true }));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(cwd, path)), { recursive: true });
    writeFileSync(join(cwd, path), text);
  }
  return cwd;
}

/** Settings loaded from a project with this `permissions` block in .harness/settings.json, trusted. */
export function settingsFor(
  permissions: Record<string, unknown> | undefined,
  files: Record<string, string> = {},
  cli: CliRules = {},
): { cwd: string; settings: PermissionSettings } {
  const all = permissions ? { ...files, ".harness/settings.json": JSON.stringify({ permissions }) } : files;
  const cwd = tempProject(all);
  const settings = loadPermissionSettings(cwd, cli, { trusted: true });
  if (settings instanceof Error) throw settings;
  return { cwd, settings };
}

/** A bash tool call. */
export function bash(command: string) {
  return { id: "toolu_1", name: "bash", input: { command } };
}

/** A call of a file tool. */
export function tool(name: string, input: Record<string, unknown>) {
  return { id: "toolu_1", name, input };
}
