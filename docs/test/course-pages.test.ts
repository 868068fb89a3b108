/**
 * What the course's own pages say about the code, checked against the code: the architecture
 * page's file lists against the `src/` folders, the course home's chapter shape against the one
 * the chapter-shape test enforces, and the start line it quotes against what the CLI prints.
 * English and Chinese alike.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@harness/cli";
import { afterAll, describe, expect, it } from "vitest";
import { CHAPTER_SECTIONS, type ChapterText } from "../src/chapter-shape.ts";
import { findChapters, REPO_ROOT } from "../src/find-chapters.ts";

const LANGUAGES: { suffix: string; text: ChapterText }[] = [
  { suffix: ".md", text: "README.md" },
  { suffix: ".zh.md", text: "README.zh.md" },
];

function page(name: string, suffix: string): string {
  return readFileSync(join(REPO_ROOT, "docs", `${name}${suffix}`), "utf8");
}

/** The part of a page from `heading` to the next `## `. */
function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n${heading}\n`);
  expect(start, `no section ${heading}`).toBeGreaterThan(-1);
  const rest = markdown.slice(start + heading.length + 2);
  const end = rest.search(/^## /m);
  return end === -1 ? rest : rest.slice(0, end);
}

/** Every file under `dir`, as paths relative to it, folders ending in `/`. */
function filesUnder(dir: string, prefix = ""): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? [`${prefix}${entry.name}/`, ...filesUnder(join(dir, entry.name), `${prefix}${entry.name}/`)]
      : [`${prefix}${entry.name}`],
  );
}

/**
 * The architecture page's list, by package: each top-level item starts `- **[name](…)**` or
 * `- **\`name\`**` and names, in backticks, the files and folders of that package's `src/`.
 */
function namedFiles(markdown: string): Map<string, Set<string>> {
  const named = new Map<string, Set<string>>();
  let current: Set<string> | undefined;
  for (const line of markdown.split("\n")) {
    const item = /^- \*\*(?:\[([a-z0-9-]+)\]\([^)]*\)|`([a-z0-9-]+)`)\*\*/.exec(line);
    if (item) {
      current = new Set();
      named.set(item[1] ?? item[2], current);
    } else if (!line.startsWith(" ")) {
      if (line.trim() !== "") current = undefined;
      continue;
    }
    for (const [, name] of line.matchAll(/`([a-z0-9-]+(?:\.ts|\/))`/g)) current?.add(name);
  }
  return named;
}

/** The packages whose `src/` the architecture page lists file by file. */
const LISTED = ["shared", "cli", "scripted-model", ...findChapters().map((chapter) => chapter.folder), "testkit"];

describe.each(LANGUAGES)("architecture$suffix", ({ suffix }) => {
  const named = namedFiles(section(page("architecture", suffix), suffix === ".md" ? "## The packages" : "## 各个包"));

  it("lists shared, cli, scripted-model, every chapter and testkit", () => {
    expect(LISTED.filter((name) => !named.has(name))).toEqual([]);
  });

  it.each(LISTED)("names every file of %s/src, and only those", (name) => {
    const real = filesUnder(join(REPO_ROOT, name, "src"));
    // a folder is named as `cli/`, a file by its name alone
    const expected = real
      .filter((path) => !/(^|\/)index\.ts$/.test(path))
      .map((path) => path.replace(/^.*\/(?=.)/, ""));
    const listed = [...(named.get(name) ?? [])];
    expect({
      missing: expected.filter((file) => !listed.includes(file)),
      notThere: listed.filter((file) => !expected.includes(file)),
    }).toEqual({ missing: [], notThere: [] });
  });
});

describe.each(LANGUAGES)("index$suffix", ({ suffix, text }) => {
  const markdown = page("index", suffix);

  it("names the ten sections of the chapter shape, in its order", () => {
    const howToRead = section(markdown, suffix === ".md" ? "## How to read a chapter" : "## 怎样读一章");
    const listed = [...howToRead.matchAll(/^\d+\. \*\*([^*]+)\*\*/gm)].map((m) => m[1]);
    expect(listed).toEqual(CHAPTER_SECTIONS.map((s) => s[text].replace(/^## /, "")));
  });

  const home = mkdtempSync(join(tmpdir(), "course-pages-"));
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it("quotes the start line a run with a key in the shell prints", () => {
    const choice = createClient({ env: { ANTHROPIC_API_KEY: "not-a-real-key" }, envFile: join(home, "no.env") });
    expect(markdown.split("\n").map((line) => line.trim())).toContain(`\`${choice.notice}\``);
  });
});
