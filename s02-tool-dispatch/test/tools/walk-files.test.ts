import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { MAX_SKIPPED_NOTES, skippedNotes, walkFiles } from "../../src/tools/walk-files.ts";
import { escapeLayout } from "../escape-layout.ts";
import { tempWorkdir } from "../temp-workdir.ts";

function tree(entries: Record<string, string>): string {
  const cwd = tempWorkdir();
  for (const [path, content] of Object.entries(entries)) {
    mkdirSync(join(cwd, path, ".."), { recursive: true });
    writeFileSync(join(cwd, path), content);
  }
  return cwd;
}

/** What a walk of `root` yields, paths relative to `cwd`. */
async function walked(cwd: string, root = cwd): Promise<string[]> {
  const seen: string[] = [];
  for await (const entry of walkFiles(cwd, root, new AbortController().signal)) {
    seen.push(`${entry.kind} ${relative(cwd, entry.path)}`);
  }
  return seen;
}

describe("walkFiles", () => {
  it("yields files depth first, in name order", async () => {
    const cwd = tree({ "b.txt": "", "a/z.txt": "", "a/y/x.txt": "", "c.txt": "" });
    expect(await walked(cwd)).toEqual(["file a/y/x.txt", "file a/z.txt", "file b.txt", "file c.txt"]);
  });

  it("lets a deeper .gitignore win, takes paths back with !, and reads .git/info/exclude", async () => {
    const cwd = tree({
      ".gitignore": "*.log\nout/\n",
      ".git/info/exclude": "local.txt\n",
      "local.txt": "",
      "a.log": "",
      "out/x.js": "",
      "sub/.gitignore": "!keep.log\n",
      "sub/keep.log": "",
      "sub/drop.log.txt": "",
    });
    expect(await walked(cwd)).toEqual([
      "file .gitignore",
      "file sub/.gitignore",
      "file sub/drop.log.txt",
      "file sub/keep.log",
    ]);
  });

  it("does not take back a file under an ignored directory (as git does not)", async () => {
    const cwd = tree({ ".gitignore": "build/\n!build/keep.txt\n", "build/keep.txt": "" });
    expect(await walked(cwd)).toEqual(["file .gitignore"]);
  });

  it("walks an ignored directory that it is asked to walk, under its own rules", async () => {
    const cwd = tree({
      ".gitignore": "vendor\n",
      "vendor/lib/a.js": "",
      "vendor/lib/.gitignore": "b.js\n",
      "vendor/lib/b.js": "",
    });
    expect(await walked(cwd, join(cwd, "vendor", "lib"))).toEqual([
      "file vendor/lib/.gitignore",
      "file vendor/lib/a.js",
    ]);
  });

  it("never enters .git/ or .harness/, rules or not", async () => {
    const cwd = tree({ ".git/config": "", ".harness/settings.json": "", "sub/.harness/x": "", "ok.txt": "" });
    expect(await walked(cwd)).toEqual(["file ok.txt"]);
  });

  it("keeps a link to a file inside, drops links that lead out, and does not follow a directory link", async () => {
    const { work } = escapeLayout();
    symlinkSync(join(work, "notes.txt"), join(work, "inside-link.txt"));
    mkdirSync(join(work, "dir"));
    symlinkSync(join(work, "dir"), join(work, "dir-link"));
    writeFileSync(join(work, "dir", "f.txt"), "");
    expect(await walked(work)).toEqual(["file dir/f.txt", "file inside-link.txt", "file notes.txt"]);
    expect(await walked(work, join(work, "linkdir"))).toEqual([]);
  });

  it("passes by every file and directory canRead refuses, and does not enter such a directory", async () => {
    const cwd = tree({ ".env": "KEY=1", "a.txt": "", "secrets/k.txt": "", "src/.env.local": "", "src/b.ts": "" });
    const asked: string[] = [];
    const canRead = (path: string) => {
      asked.push(relative(cwd, path));
      return !/(^|\/)(\.env[^/]*|secrets)$/.test(relative(cwd, path));
    };
    const seen: string[] = [];
    for await (const entry of walkFiles(cwd, cwd, undefined, canRead)) seen.push(relative(cwd, entry.path));
    expect(seen).toEqual(["a.txt", "src/b.ts"]);
    expect(asked).not.toContain("secrets/k.txt");
  });

  it("reports a named pipe as not a file", async () => {
    const cwd = tree({ "a.txt": "" });
    execFileSync("mkfifo", [join(cwd, "pipe")]);
    expect(await walked(cwd)).toEqual(["file a.txt", "not_a_file pipe"]);
  });
});

describe("skippedNotes", () => {
  it(`names at most MAX_SKIPPED_NOTES (${MAX_SKIPPED_NOTES}) things, then counts the rest`, () => {
    const reasons = Array.from({ length: MAX_SKIPPED_NOTES + 3 }, (_, i) => `f${i} is not a regular file.`);
    const notes = skippedNotes(reasons);
    expect(notes[0]).toBe("[skipped: f0 is not a regular file.]");
    expect(notes).toHaveLength(MAX_SKIPPED_NOTES + 1);
    expect(notes.at(-1)).toBe("[3 more skipped]");
  });
});
