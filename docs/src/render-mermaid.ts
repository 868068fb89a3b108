/**
 * Mermaid diagrams as static SVG, drawn at build time without a browser or a network
 * (beautiful-mermaid: pure TypeScript, no DOM). GitHub draws the same ```mermaid blocks itself;
 * the site gets a picture that needs nothing at view time, and keeps the source beside it.
 *
 * Left out: diagram kinds the renderer does not know fail the build (a warning under
 * treatWarningsAsErrors) instead of showing something else.
 */
import { createHash } from "node:crypto";
import { renderMermaidSVG } from "beautiful-mermaid";

/**
 * Draw one diagram as an SVG element to inline in a page.
 *
 * The SVG takes its colours from the page (typedoc's `--color-background` and `--color-text`, so
 * it follows the light and dark themes), loads no font from the network, and prefixes its ids so
 * that two diagrams on one page do not share markers.
 *
 * Contract: throws when the renderer fails, or when a label the source writes (a quoted node or
 * edge label, a sequence message or participant) is missing from the drawing.
 */
export function renderMermaid(source: string): string {
  const prefix = `mermaid-${createHash("sha1").update(source).digest("hex").slice(0, 8)}`;
  const raw = renderMermaidSVG(source, {
    bg: "var(--color-background)",
    fg: "var(--color-text)",
    transparent: true,
  });
  const svg = raw
    // the renderer asks for a web font; the site works offline, so the system font it falls back to is used
    .replace(/@import url\([^)]*\);?/g, "")
    .replace(/\bid="([^"]+)"/g, `id="${prefix}-$1"`)
    .replace(/url\(#([^)]+)\)/g, `url(#${prefix}-$1)`)
    .replace(/href="#([^"]+)"/g, `href="#${prefix}-$1"`)
    .replace(/^<svg /, `<svg role="img" class="mermaid-svg" `);
  const drawn = squash(textOf(svg));
  const missing = labelsOf(source).filter((label) => !drawn.includes(squash(label)));
  if (missing.length > 0) {
    throw new Error(`the drawing lacks ${missing.map((label) => JSON.stringify(label)).join(", ")}`);
  }
  return svg;
}

/** The labels a diagram's source writes out: quoted labels, |edge labels|, sequence messages. */
export function labelsOf(source: string): string[] {
  const labels: string[] = [];
  for (const line of source.split("\n")) {
    const trimmed = line.trim();
    if (trimmed.startsWith("%%")) continue;
    for (const match of trimmed.matchAll(/"([^"]+)"/g)) labels.push(match[1]);
    for (const match of trimmed.matchAll(/\|([^|"]+)\|/g)) labels.push(match[1]);
    const participant = /^(?:participant|actor)\s+\S+\s+as\s+(.+)$/.exec(trimmed);
    if (participant) labels.push(participant[1]);
    const message = /^[^:\s]+\s*-{1,2}[>x)]{1,2}[+-]?\s*[^:\s]+\s*:\s*(.+)$/.exec(trimmed);
    if (message) labels.push(message[1]);
  }
  return labels.map((label) => decodeEntities(label.replace(/<br\s*\/?>/gi, " "))).filter((l) => l.trim() !== "");
}

/** The text content of an SVG: every text node, entities decoded. */
function textOf(svg: string): string {
  return decodeEntities(
    svg
      .replace(/<style[\s\S]*?<\/style>/g, "")
      .replace(/<[^>]+>/g, " ")
      .replace(/\s+/g, " "),
  );
}

function decodeEntities(text: string): string {
  return text
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&apos;/g, "'")
    .replace(/&#(\d+);/g, (_, code) => String.fromCodePoint(Number(code)))
    .replace(/&#x([0-9a-f]+);/gi, (_, code) => String.fromCodePoint(Number.parseInt(code, 16)))
    .replace(/&amp;/g, "&");
}

/** Whitespace dropped, so a label wrapped over two lines still matches. */
function squash(text: string): string {
  return text.replace(/\s+/g, "");
}
