/**
 * The top-level README.md and README.zh.md are GitHub's front page, not pages of the site, so the
 * site build does not check their links: this does. Every relative link points at a file or a
 * folder in the repository, and each language links to the other.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../src/find-chapters.ts";

/** The relative link targets of a markdown text, outside code, without their #anchors. */
function relativeLinks(markdown: string): string[] {
  const prose = markdown.replace(/^```[\s\S]*?^```\s*$/gm, "").replace(/`[^`\n]*`/g, "");
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1].replace(/#.*$/, ""))
    .filter((target) => target !== "" && !/^[a-z]+:/i.test(target));
}

describe.each(["README.md", "README.zh.md"])("%s", (name) => {
  const text = readFileSync(join(REPO_ROOT, name), "utf8");

  it("links only to files that exist", () => {
    const missing = relativeLinks(text).filter((target) => !existsSync(join(REPO_ROOT, target)));
    expect(missing).toEqual([]);
  });

  it("links to the other language", () => {
    expect(relativeLinks(text)).toContain(name === "README.md" ? "README.zh.md" : "README.md");
  });
});
