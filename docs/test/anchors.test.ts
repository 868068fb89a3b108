/**
 * Links to a heading (`page.md#some-heading`) in the course's own pages lead somewhere, on GitHub
 * and in the site. GitHub and typedoc make a heading's anchor differently: both lower-case it and
 * turn spaces into dashes, but typedoc keeps full-width punctuation (（）：，) and drops code spans,
 * where GitHub drops the one and keeps the text of the other. A heading that is linked to keeps to
 * what both agree on: words, digits, spaces, and ASCII punctuation outside code.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../src/find-chapters.ts";

const DOCS = join(REPO_ROOT, "docs");
const PAGES = readdirSync(DOCS).filter((name) => name.endsWith(".md") && name !== "README.md");

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as dashes. */
function githubAnchor(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The headings of a markdown text, outside code blocks, without their #s. */
function headings(markdown: string): string[] {
  return markdown
    .replace(/^```[\s\S]*?^```\s*$/gm, "")
    .split("\n")
    .filter((line) => /^#{1,6} /.test(line))
    .map((line) => line.replace(/^#+ /, "").trim());
}

describe("links to headings in the docs pages", () => {
  const links = PAGES.flatMap((page) => {
    const text = readFileSync(join(DOCS, page), "utf8");
    return [...text.matchAll(/\]\(([a-z.-]*\.md)?#([^)\s]+)\)/g)].map((m) => ({
      from: page,
      to: m[1] ?? page,
      anchor: decodeURIComponent(m[2]),
    }));
  });

  it("there are some", () => {
    expect(links.length).toBeGreaterThan(0);
  });

  it.each(PAGES)("each one from %s names a heading of its page, written so both anchors agree", (page) => {
    const broken = links
      .filter((link) => link.from === page)
      .filter((link) => {
        const target = headings(readFileSync(join(DOCS, link.to), "utf8")).find(
          (heading) => githubAnchor(heading) === link.anchor,
        );
        return target === undefined || /[`\uFF00-\uFFEF\u3000-\u303F]/.test(target);
      })
      .map((link) => `${link.to}#${link.anchor}`);
    expect(broken).toEqual([]);
  });
});
