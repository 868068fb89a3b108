/**
 * renderMermaid draws the kinds of diagram the course uses as self-contained SVG, and refuses to
 * draw one that would say less than its source.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { findChapters, REPO_ROOT } from "../src/find-chapters.ts";
import { labelsOf, renderMermaid } from "../src/render-mermaid.ts";

const FLOWCHART = `flowchart TD
    A["ask the model"] --> B{"tool calls?"}
    B -- "yes" --> C["run them"]
    C --> A
    B -- "no" --> D(["answer"])
`;

const SEQUENCE = `sequenceDiagram
  participant L as loop
  participant M as model
  L->>M: messages + tools
  M-->>L: a turn
`;

describe("renderMermaid", () => {
  it("draws a flowchart with every label, in the page's colours", () => {
    const svg = renderMermaid(FLOWCHART);
    expect(svg).toMatch(/^<svg role="img" class="mermaid-svg" /);
    for (const label of ["ask the model", "tool calls?", "run them", "answer", "yes", "no"]) {
      expect(svg).toContain(label);
    }
    expect(svg).toContain("--bg:var(--color-background)");
    expect(svg).toContain("--fg:var(--color-text)");
  });

  it("draws a sequence diagram", () => {
    const svg = renderMermaid(SEQUENCE);
    for (const label of ["loop", "model", "messages + tools", "a turn"]) expect(svg).toContain(label);
  });

  it("asks nothing of the network: no font import, no URL but the SVG namespace", () => {
    const svg = renderMermaid(FLOWCHART);
    expect(svg).not.toContain("@import");
    expect(svg.match(/https?:\/\/[^"'\s)]+/g)).toEqual(["http://www.w3.org/2000/svg"]);
  });

  it("gives each diagram its own ids, so two on a page do not share markers", () => {
    const [one, two] = [renderMermaid(FLOWCHART), renderMermaid(SEQUENCE)];
    const ids = (svg: string) => [...svg.matchAll(/\bid="([^"]+)"/g)].map((m) => m[1]);
    expect(ids(one).length).toBeGreaterThan(0);
    expect(ids(one).filter((id) => ids(two).includes(id))).toEqual([]);
    for (const [, ref] of one.matchAll(/url\(#([^)]+)\)/g)) expect(ids(one)).toContain(ref);
  });

  it("throws rather than draw a node without the label its source gives it", () => {
    // the renderer keeps a node's first appearance: here a bare `B`, not the decision below it
    const source = 'flowchart TD\n  A["start"] --> B\n  A --> B{"n = maxTurns?"}\n';
    expect(() => renderMermaid(source)).toThrow('the drawing lacks "n = maxTurns?"');
  });

  it("draws every diagram in the docs pages and the chapters' texts", () => {
    const folders = ["docs", "shared", ...findChapters().map((chapter) => chapter.folder)];
    const pages = folders.flatMap((folder) =>
      readdirSync(join(REPO_ROOT, folder))
        .filter((name) => name.endsWith(".md"))
        .map((name) => join(folder, name)),
    );
    let drawn = 0;
    for (const page of pages) {
      const text = readFileSync(join(REPO_ROOT, page), "utf8");
      for (const [, diagram] of text.matchAll(/^```mermaid\n([\s\S]*?)^```/gm)) {
        expect(() => renderMermaid(diagram), page).not.toThrow();
        drawn++;
      }
    }
    expect(drawn).toBeGreaterThanOrEqual(4);
  });
});

describe("labelsOf", () => {
  it("reads quoted labels, |edge labels|, participants and messages", () => {
    const source = 'flowchart LR\n  A["one"] -->|two| B\n%% "a comment"\n';
    expect(labelsOf(source)).toEqual(["one", "two"]);
    expect(labelsOf(SEQUENCE)).toEqual(["loop", "model", "messages + tools", "a turn"]);
  });
});
