/**
 * The chart: one panel per scenario and unit, one bar per figure (its median), a whisker from
 * min to max, and a dashed line at the target when it is a limit. Green: target met; red: missed;
 * grey: no target. Hand-written SVG, no charting library.
 */
import { type Figure, formatValue, type Section, type Unit } from "./section.ts";

const WIDTH = 960;
const LABEL = 380; // label column
const PLOT = 460; // bar area
const ROW = 26;
const HEAD = 34;

/** The chart as an SVG document. */
export function renderChart(sections: readonly Section[]): string {
  const panels = sections.flatMap((s) => {
    const units = [...new Set(s.figures.map((f) => f.unit))];
    return units.map((unit) => ({
      title: `${s.title} (${unitName(unit)})`,
      unit,
      figures: s.figures.filter((f) => f.unit === unit),
    }));
  });
  let y = 40;
  const parts: string[] = [
    `<text x="16" y="24" font-size="16" font-weight="bold">pnpm bench: median (bar), min–max (whisker; an arrow runs off the scale), target (dashed); lower is better</text>`,
  ];
  for (const panel of panels) {
    parts.push(panelSvg(panel.title, panel.unit, panel.figures, y));
    y += HEAD + panel.figures.length * ROW + 18;
  }
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${y}" viewBox="0 0 ${WIDTH} ${y}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    ...parts,
    "</svg>",
    "",
  ].join("\n");
}

function panelSvg(title: string, unit: Unit, figures: readonly Figure[], top: number): string {
  // the scale follows the medians and targets; a whisker past it is cut at the edge, with an arrow
  const limit = Math.max(
    ...figures.flatMap((f) => [f.spread.median * 1.6, (f.target?.limit ?? 0) * 1.2]).filter(Number.isFinite),
    unit === "x" ? 1.2 : 0,
  );
  const scale = (v: number) => LABEL + (PLOT * Math.min(Math.max(0, v), limit)) / (limit || 1);
  const out = [`<text x="16" y="${top + 18}" font-size="14" font-weight="bold">${escapeXml(title)}</text>`];
  const bottom = top + HEAD + figures.length * ROW;
  out.push(line(LABEL, top + HEAD - 4, LABEL, bottom, "#999"));
  if (unit === "x") out.push(line(scale(1), top + HEAD - 4, scale(1), bottom, "#bbb", "2,2"));
  figures.forEach((f, i) => {
    const y = top + HEAD + i * ROW;
    const color = f.target ? (f.target.met ? "#2e8b57" : "#c0392b") : "#8c8c8c";
    out.push(`<text x="${LABEL - 8}" y="${y + 15}" text-anchor="end">${escapeXml(clip(f.label, 58))}</text>`);
    if (Number.isFinite(f.spread.median)) {
      out.push(
        `<rect x="${LABEL}" y="${y + 4}" width="${scale(f.spread.median) - LABEL}" height="${ROW - 10}" fill="${color}" opacity="0.8"/>`,
      );
      out.push(line(scale(f.spread.min), y + ROW / 2, scale(f.spread.max), y + ROW / 2, "#222"));
      out.push(line(scale(f.spread.min), y + 6, scale(f.spread.min), y + ROW - 6, "#222"));
      if (f.spread.max <= limit) out.push(line(scale(f.spread.max), y + 6, scale(f.spread.max), y + ROW - 6, "#222"));
      else
        out.push(
          `<path d="M${LABEL + PLOT - 6},${y + 7} L${LABEL + PLOT},${y + ROW / 2} L${LABEL + PLOT - 6},${y + ROW - 7}" fill="none" stroke="#222"/>`,
        );
    }
    const targetAt = f.target?.limit;
    if (targetAt !== undefined) out.push(line(scale(targetAt), y + 1, scale(targetAt), y + ROW - 1, "#000", "4,3"));
    const measured = Number.isFinite(f.spread.median);
    const verdict = !f.target ? "" : !measured ? " not measured" : f.target.met ? " met" : " MISSED";
    out.push(
      `<text x="${LABEL + PLOT + 8}" y="${y + 15}">${escapeXml(formatValue(f.spread.median, unit) + verdict)}</text>`,
    );
  });
  return out.join("\n");
}

function line(x1: number, y1: number, x2: number, y2: number, stroke: string, dash?: string): string {
  const d = dash ? ` stroke-dasharray="${dash}"` : "";
  return `<line x1="${x1.toFixed(1)}" y1="${y1}" x2="${x2.toFixed(1)}" y2="${y2}" stroke="${stroke}"${d}/>`;
}

function unitName(unit: Unit): string {
  return unit === "x" ? "ratio" : unit;
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function escapeXml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}
