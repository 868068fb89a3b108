import { homedir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { harnessDataDir, MAX_SLUG_LENGTH, projectSlug } from "../src/harness-data-dir.ts";

describe("harnessDataDir", () => {
  it("is a directory per project under HARNESS_HOME", () => {
    expect(harnessDataDir("/work/main", { HARNESS_HOME: "/data/harness" })).toBe("/data/harness/projects/-work-main");
  });

  it("defaults HARNESS_HOME to ~/.harness", () => {
    expect(harnessDataDir("/work/main", {})).toBe(join(homedir(), ".harness", "projects", "-work-main"));
    expect(harnessDataDir("/work/main", { HARNESS_HOME: "" })).toBe(
      join(homedir(), ".harness", "projects", "-work-main"),
    );
  });

  it("names the project by its absolute path, however it was written", () => {
    const env = { HARNESS_HOME: "/h" };
    expect(harnessDataDir("/work/main/", env)).toBe(harnessDataDir("/work/main", env));
    expect(harnessDataDir("/work/other/../main", env)).toBe(harnessDataDir("/work/main", env));
    expect(harnessDataDir(".", env)).toBe(join("/h", "projects", projectSlug(process.cwd())));
  });

  it("is never inside the project it is for", () => {
    const project = join(homedir(), "code", "app");
    expect(harnessDataDir(project, {}).startsWith(`${project}/`)).toBe(false);
  });
});

describe("projectSlug", () => {
  it("reads like the path, with every character but letters and digits as a dash", () => {
    expect(projectSlug("/work/main")).toBe("-work-main");
    expect(projectSlug("/home/me/my.app_v2")).toBe("-home-me-my-app-v2");
    expect(projectSlug("/tmp/项目")).toBe("-tmp---");
  });

  it("is one file name: no separator, no dot-only name", () => {
    for (const dir of ["/", "/a/b/c", "/..", "/tmp/x y/z"]) {
      const slug = projectSlug(dir);
      expect(slug).not.toContain("/");
      expect(slug).not.toMatch(/^\.+$/);
    }
  });

  it("cuts a long path and keeps it apart from another cut the same way", () => {
    const long = `/${"a".repeat(300)}`;
    const a = projectSlug(`${long}/one`);
    const b = projectSlug(`${long}/two`);
    expect(a).toHaveLength(MAX_SLUG_LENGTH);
    expect(b).toHaveLength(MAX_SLUG_LENGTH);
    expect(a).not.toBe(b);
    expect(a.startsWith(`-${"a".repeat(100)}`)).toBe(true);
  });
});
