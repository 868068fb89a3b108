import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cleanUpAfter } from "@harness/testkit";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_DENY_RULES,
  LOCAL_SETTINGS,
  loadPermissionSettings,
  PROJECT_SETTINGS,
  SettingsError,
} from "../src/index.ts";
import { tempProject } from "./temp-project.ts";

function load(files: Record<string, string>, cli = {}, trusted = false) {
  return loadPermissionSettings(tempProject(files), cli, { trusted });
}

function errorOf(files: Record<string, string>, cli = {}): SettingsError {
  const loaded = load(files, cli);
  if (!(loaded instanceof SettingsError)) throw new Error("expected a SettingsError");
  return loaded;
}

describe("loadPermissionSettings", () => {
  it("holds the default denies and default mode with no settings at all", () => {
    const settings = load({});
    if (settings instanceof SettingsError) throw settings;
    expect(settings.defaultMode).toBe("default");
    expect(settings.files).toEqual([]);
    expect(settings.rules.map((r) => [r.rule.text, r.behavior, r.source])).toEqual(
      DEFAULT_DENY_RULES.map((text) => [text, "deny", "default"]),
    );
  });

  it("adds up the project's rules, the local file's and the command line's, each with its source", () => {
    const settings = load(
      {
        [PROJECT_SETTINGS]: JSON.stringify({ permissions: { allow: ["Bash(git diff:*)"], defaultMode: "plan" } }),
        [LOCAL_SETTINGS]: JSON.stringify({ permissions: { deny: ["Bash(rm:*)"], defaultMode: "acceptEdits" } }),
      },
      { deny: ["Edit(docs/**)"], allow: ["Read"] },
      true,
    );
    if (settings instanceof SettingsError) throw settings;
    expect(settings.defaultMode).toBe("acceptEdits"); // the local file wins
    expect(settings.files).toEqual([PROJECT_SETTINGS, LOCAL_SETTINGS]);
    expect(settings.rules.map((r) => `${r.behavior} ${r.rule.text} ${r.source}`).slice(0, 4)).toEqual([
      `allow Bash(git diff:*) ${PROJECT_SETTINGS}`,
      `deny Bash(rm:*) ${LOCAL_SETTINGS}`,
      "allow Read --allow",
      "deny Edit(docs/**) --deny",
    ]);
  });

  it("leaves other chapters' keys alone", () => {
    expect(load({ [PROJECT_SETTINGS]: JSON.stringify({ hooks: { PreToolUse: [] } }) })).not.toBeInstanceOf(
      SettingsError,
    );
  });

  it("names the file, the line and the rule of a rule that does not parse", () => {
    const text = `{\n  "permissions": {\n    "allow": [\n      "Bash(git diff:*)",\n      "Bash(rm"\n    ]\n  }\n}\n`;
    const error = errorOf({ [PROJECT_SETTINGS]: text });
    expect({ file: error.file, line: error.line, rule: error.rule }).toEqual({
      file: PROJECT_SETTINGS,
      line: 5,
      rule: "Bash(rm",
    });
    expect(error.message).toBe(
      `${PROJECT_SETTINGS}:5: the rule "Bash(rm" does not parse: expected a tool name, optionally with a specifier in parentheses, e.g. Bash(git diff:*)`,
    );
  });

  it("names the line of JSON that does not parse", () => {
    const error = errorOf({ [LOCAL_SETTINGS]: `{\n  "permissions": {\n    "deny": ["Bash(rm:*)",]\n  }\n}\n` });
    expect(error.message).toMatch(new RegExp(`^${LOCAL_SETTINGS.replace(/\./g, "\\.")}:3: is not valid JSON: `));
  });

  it("refuses an unknown key in permissions, with its line, and a value of the wrong shape", () => {
    const typo = errorOf({ [PROJECT_SETTINGS]: `{\n  "permissions": {\n    "alow": []\n  }\n}` });
    expect(typo.message).toBe(`${PROJECT_SETTINGS}:3: unknown key "alow" in permissions`);
    const shape = errorOf({ [PROJECT_SETTINGS]: `{"permissions": {"deny": "Bash(rm:*)"}}` });
    expect(shape.message).toContain("permissions.deny: a list of rules is an array of strings");
    const mode = errorOf({ [PROJECT_SETTINGS]: `{"permissions": {"defaultMode": "yolo"}}` });
    expect(mode.message).toContain("defaultMode is one of default, acceptEdits, plan, bypassPermissions");
  });

  it("names the option of a command-line rule that does not parse", () => {
    expect(errorOf({}, { deny: ["Bash(rm"] }).message).toMatch(/^--deny: the rule "Bash\(rm" does not parse/);
  });

  it("switches the default denies off only from the local file", () => {
    const local = load({ [LOCAL_SETTINGS]: JSON.stringify({ permissions: { disableDefaultDenies: true } }) });
    if (local instanceof SettingsError) throw local;
    expect(local.defaultDenies).toBe(false);
    expect(local.rules).toEqual([]);
    const project = errorOf({ [PROJECT_SETTINGS]: `{\n "permissions": {\n  "disableDefaultDenies": true\n }\n}` });
    expect(project.message).toMatch(
      /^\.harness\/settings\.json:3: disableDefaultDenies is honoured only in \.harness\/settings\.local\.json/,
    );
  });

  it("takes bypassPermissions as the default mode only from the local file", () => {
    expect(errorOf({ [PROJECT_SETTINGS]: `{"permissions": {"defaultMode": "bypassPermissions"}}` }).message).toContain(
      "a repository cannot switch off every prompt",
    );
    const local = load({ [LOCAL_SETTINGS]: `{"permissions": {"defaultMode": "bypassPermissions"}}` });
    expect(local).toMatchObject({ defaultMode: "bypassPermissions" });
  });

  const widening = {
    allow: ["Bash(touch:*)"],
    ask: ["Bash(git push:*)"],
    deny: ["Bash(rm:*)"],
    defaultMode: "acceptEdits",
  };

  it("holds back what settings.json widens until trusted; its ask and deny rules apply at once", () => {
    const files = { [PROJECT_SETTINGS]: JSON.stringify({ permissions: widening }) };
    const untrusted = load(files);
    if (untrusted instanceof SettingsError) throw untrusted;
    expect(untrusted.defaultMode).toBe("default");
    expect(untrusted.rules.map((r) => `${r.behavior} ${r.rule.text}`).slice(0, 2)).toEqual([
      "ask Bash(git push:*)",
      "deny Bash(rm:*)",
    ]);
    expect(untrusted.held).toEqual([
      { file: PROJECT_SETTINGS, shipped: "the project's", setting: "defaultMode", value: "acceptEdits" },
      { file: PROJECT_SETTINGS, shipped: "the project's", setting: "allow", value: "Bash(touch:*)" },
    ]);
    const trusted = load(files, {}, true);
    if (trusted instanceof SettingsError) throw trusted;
    expect(trusted).toMatchObject({ defaultMode: "acceptEdits", held: [] });
    expect(trusted.rules.map((r) => `${r.behavior} ${r.rule.text}`)).toContain("allow Bash(touch:*)");
  });

  it("holds back a plan mode nothing: a mode that runs less needs no trust", () => {
    expect(load({ [PROJECT_SETTINGS]: `{"permissions": {"defaultMode": "plan"}}` })).toMatchObject({
      defaultMode: "plan",
      held: [],
    });
  });

  /** A git repository whose settings.local.json switches everything on, committed. */
  function committedLocal(): string {
    const cwd = tempProject({
      [LOCAL_SETTINGS]: JSON.stringify({
        permissions: { defaultMode: "bypassPermissions", disableDefaultDenies: true, allow: ["Bash"] },
      }),
    });
    execFileSync("git", ["init", "-q", cwd]);
    execFileSync("git", ["add", "-f", LOCAL_SETTINGS], { cwd });
    return cwd;
  }

  it("takes a settings.local.json git tracks as the project's: nothing in it widens until trusted", () => {
    const cwd = committedLocal();
    const untrusted = loadPermissionSettings(cwd);
    if (untrusted instanceof SettingsError) throw untrusted;
    expect(untrusted).toMatchObject({ defaultMode: "default", defaultDenies: true });
    expect(untrusted.held.map((one) => `${one.setting} ${one.shipped}`)).toEqual([
      "defaultMode tracked by git",
      "disableDefaultDenies tracked by git",
      "allow tracked by git",
    ]);
    expect(loadPermissionSettings(cwd, {}, { trusted: true })).toMatchObject({
      defaultMode: "bypassPermissions",
      defaultDenies: false,
    });
  });

  it("takes a settings.local.json reached through a link out of .harness as the project's", () => {
    const elsewhere = mkdtempSync(join(tmpdir(), "s05-elsewhere-"));
    cleanUpAfter(() => rmSync(elsewhere, { recursive: true, force: true }));
    writeFileSync(join(elsewhere, "settings.local.json"), `{"permissions": {"defaultMode": "bypassPermissions"}}`);
    const linkedFile = tempProject();
    mkdirSync(join(linkedFile, ".harness"));
    symlinkSync(join(elsewhere, "settings.local.json"), join(linkedFile, LOCAL_SETTINGS));
    const linkedDir = tempProject();
    symlinkSync(elsewhere, join(linkedDir, ".harness"));
    for (const cwd of [linkedFile, linkedDir]) {
      expect(loadPermissionSettings(cwd)).toMatchObject({
        defaultMode: "default",
        held: [{ file: LOCAL_SETTINGS, shipped: "a link out of .harness", setting: "defaultMode" }],
      });
    }
  });
});
