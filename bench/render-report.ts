/**
 * The report: one markdown table per scenario (figure, min / median / max, target, verdict), the
 * scenario's notes, and its problems in capitals. The same text is printed and written to
 * bench/results/report.md.
 */
import { type Figure, formatValue, type Section } from "./section.ts";

/** What the whole run was. */
export interface RunInfo {
  command: string;
  date: string;
  machine: string;
  skipped: string[];
}

/** The report as markdown. */
export function renderReport(sections: readonly Section[], info: RunInfo): string {
  const lines = [
    "# Benchmark report",
    "",
    `\`${info.command}\` on ${info.date}; ${info.machine}.`,
    "A target is judged on the median; min and max show the spread over repetitions.",
    ...(info.skipped.length ? ["", `Skipped in this run: ${info.skipped.join(", ")}.`] : []),
    "",
    "## Targets",
    "",
    ...targetSummary(sections),
  ];
  for (const section of sections) {
    lines.push("", `## ${section.title}`, "", section.about, "");
    lines.push("| figure | min | median | max | detail | target | verdict |", "|---|---|---|---|---|---|---|");
    for (const f of section.figures) lines.push(row(f));
    if (section.notes.length) lines.push("", ...section.notes.map((n) => `- ${n}`));
    if (section.problems.length) lines.push("", ...section.problems.map((p) => `- **PROBLEM: ${p}**`));
  }
  return `${lines.join("\n")}\n`;
}

function row(f: Figure): string {
  const cells = [
    f.label,
    formatValue(f.spread.min, f.unit),
    `**${formatValue(f.spread.median, f.unit)}**`,
    formatValue(f.spread.max, f.unit),
    f.detail ?? "",
    f.target?.text ?? "—",
    verdict(f),
  ];
  return `| ${cells.join(" | ")} |`;
}

/** One line per target: met or missed, and the figure beside it. */
function targetSummary(sections: readonly Section[]): string[] {
  const lines: string[] = [];
  for (const section of sections) {
    for (const f of section.figures) {
      if (!f.target) continue;
      lines.push(
        `- ${verdict(f)}: ${section.title}, ${f.label}: median ${formatValue(f.spread.median, f.unit)}, target ${f.target.text}`,
      );
    }
    for (const p of section.problems) lines.push(`- **PROBLEM** (${section.title}): ${p}`);
  }
  return lines.length ? lines : ["- (no targets in the scenarios run)"];
}

/** met, MISSED, or not measured (no run gave a figure: see the figure's detail and the section's problems). */
function verdict(f: Figure): string {
  if (!f.target) return "—";
  if (!Number.isFinite(f.spread.median)) return "**not measured**";
  return f.target.met ? "met" : "**MISSED**";
}
