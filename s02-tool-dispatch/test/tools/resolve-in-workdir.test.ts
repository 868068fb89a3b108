import { existsSync, linkSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { resolveInWorkdir } from "../../src/tools/resolve-in-workdir.ts";
import { ESCAPES, escapeLayout } from "../escape-layout.ts";

describe("resolveInWorkdir", () => {
  it.each(ESCAPES)("refuses %s", (_way, pathIn) => {
    const layout = escapeLayout();
    const path = pathIn(layout);
    const resolved = resolveInWorkdir(layout.work, path);
    expect(resolved).toEqual({
      ok: false,
      code: "outside_workdir",
      reason: `${path} is outside the working directory ${layout.work}`,
    });
  });

  it("refuses a new file under a symlinked directory", () => {
    const { work } = escapeLayout();
    expect(resolveInWorkdir(work, "linkdir/new/deeper.txt").ok).toBe(false);
  });

  it("refuses a link whose target does not exist yet", () => {
    const { work, outside } = escapeLayout();
    expect(resolveInWorkdir(work, "dangling.txt").ok).toBe(false);
    expect(existsSync(join(outside, "missing.txt"))).toBe(false);
  });

  it("accepts a file inside, a file to create, and the directory itself", () => {
    const { work } = escapeLayout();
    expect(resolveInWorkdir(work, "notes.txt")).toEqual({ ok: true, path: join(work, "notes.txt") });
    expect(resolveInWorkdir(work, "new/dir/file.txt")).toEqual({ ok: true, path: join(work, "new/dir/file.txt") });
    expect(resolveInWorkdir(work, ".")).toEqual({ ok: true, path: work });
    expect(resolveInWorkdir(work, join(work, "notes.txt")).ok).toBe(true);
  });

  it("accepts a path that leaves and comes back in", () => {
    const { work } = escapeLayout();
    expect(resolveInWorkdir(work, "../work/notes.txt")).toEqual({ ok: true, path: join(work, "notes.txt") });
  });

  it("treats a name that starts with two dots as a name inside", () => {
    const { work } = escapeLayout();
    writeFileSync(join(work, "..notes"), "dots\n");
    expect(resolveInWorkdir(work, "..notes")).toEqual({ ok: true, path: join(work, "..notes") });
  });

  it("answers a path through a regular file without throwing", () => {
    const { work } = escapeLayout();
    // notes.txt/x cannot exist; the longest part that exists is notes.txt, which is inside
    expect(resolveInWorkdir(work, "notes.txt/x")).toEqual({ ok: true, path: join(work, "notes.txt/x") });
  });

  it("refuses a path inside .harness/, at any depth, through a link, and for a file to create", () => {
    const { work } = escapeLayout();
    mkdirSync(join(work, ".harness"));
    symlinkSync(join(work, ".harness"), join(work, "harness-link"));
    for (const path of [".harness", ".harness/settings.json", "sub/.harness/x", "harness-link/new.json"]) {
      expect(resolveInWorkdir(work, path), path).toEqual({
        ok: false,
        code: "harness_file",
        reason: `${path} is inside .harness/, the harness's own files`,
      });
    }
    expect(resolveInWorkdir(work, ".harness-notes/x").ok).toBe(true);
  });

  it("accepts a hard link to a file outside: it cannot be told apart from a file of its own", () => {
    const { work, outside } = escapeLayout();
    linkSync(join(outside, "secret.txt"), join(work, "hardlink.txt"));
    expect(resolveInWorkdir(work, "hardlink.txt")).toEqual({ ok: true, path: join(work, "hardlink.txt") });
  });
});
