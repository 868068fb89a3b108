import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LOCAL_SETTINGS, loadPermissionSettings, SettingsError, saveAllowRules } from "../src/index.ts";
import { tempProject } from "./temp-project.ts";

const local = (cwd: string) => readFileSync(join(cwd, LOCAL_SETTINGS), "utf8");

describe("saveAllowRules", () => {
  it("creates the local settings with the rules, which the next start reads", () => {
    const cwd = tempProject();
    expect(saveAllowRules(cwd, ["Bash(npm test)"])).toEqual(["Bash(npm test)"]);
    expect(JSON.parse(local(cwd))).toEqual({ permissions: { allow: ["Bash(npm test)"] } });
    const settings = loadPermissionSettings(cwd);
    expect(settings).not.toBeInstanceOf(SettingsError);
    expect(settings).toMatchObject({ files: [LOCAL_SETTINGS] });
  });

  it("adds to what the file holds, keeping its other keys, and never adds a rule twice", () => {
    const before =
      '{\n  "hooks": {},\n  "permissions": {\n    "allow": ["Bash(ls)"],\n    "defaultMode": "plan"\n  }\n}\n';
    const cwd = tempProject({ [LOCAL_SETTINGS]: before });
    expect(saveAllowRules(cwd, ["Bash(ls)", "Edit(/a.txt)", "Edit(/a.txt)"])).toEqual(["Edit(/a.txt)"]);
    expect(JSON.parse(local(cwd))).toEqual({
      hooks: {},
      permissions: { allow: ["Bash(ls)", "Edit(/a.txt)"], defaultMode: "plan" },
    });
    expect(saveAllowRules(cwd, ["Bash(ls)"])).toEqual([]);
  });

  it("leaves a file it cannot read as JSON as it is, and says so", () => {
    const cwd = tempProject({ [LOCAL_SETTINGS]: '{ "permissions": { "allow": "Bash" } }' });
    const result = saveAllowRules(cwd, ["Bash(ls)"]);
    expect(result).toBeInstanceOf(SettingsError);
    expect((result as SettingsError).message).toBe(
      ".harness/settings.local.json: permissions.allow is not a list, so the rule was not written into it",
    );
    const broken = tempProject({ [LOCAL_SETTINGS]: "{ oops" });
    expect(saveAllowRules(broken, ["Bash(ls)"])).toBeInstanceOf(SettingsError);
    expect(local(broken)).toBe("{ oops");
    expect(readdirSync(join(broken, ".harness"))).toEqual(["settings.local.json"]); // no temporary file left
  });

  it("writes nothing into a local settings file the project ships, and says so", () => {
    const committed = tempProject({ [LOCAL_SETTINGS]: "{}\n" });
    execFileSync("git", ["init", "-q", committed]);
    execFileSync("git", ["add", "-f", LOCAL_SETTINGS], { cwd: committed });
    expect(saveAllowRules(committed, ["Bash(ls)"])).toEqual(
      new SettingsError(LOCAL_SETTINGS, "came with the project (tracked by git), so the rule was not written into it"),
    );
    expect(local(committed)).toBe("{}\n");
    // .harness a link to another folder: no file there yet, and none is made
    const elsewhere = tempProject();
    const linked = tempProject();
    symlinkSync(elsewhere, join(linked, ".harness"));
    expect(saveAllowRules(linked, ["Bash(ls)"])).toBeInstanceOf(SettingsError);
    expect(readdirSync(elsewhere)).toEqual([]);
  });
});
