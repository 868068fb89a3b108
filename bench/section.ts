/**
 * What a scenario hands back: figures (each a spread over repetitions, with its target when the
 * issue states one), notes for the reader, and problems that make a comparison invalid (unequal
 * work, a failed run). The report and the chart are both drawn from these.
 */

/** Min, median and max over repetitions. */
export interface Spread {
  min: number;
  median: number;
  max: number;
}

/** How a figure's numbers read. */
export type Unit = "x" | "ms" | "µs" | "KB" | "MB" | "s" | "%";

/**
 * A target from the issue. A limit is judged on the figure's median (`atMost`, `under`); a check
 * that is not a number, such as an order kept, is met or not as a whole (`check`).
 */
export interface Target {
  /** The target as the report states it, e.g. "≤ 1.05x of the floor". */
  text: string;
  /** The limit the median is held to (drawn on the chart); absent for a check. */
  limit?: number;
  met: boolean;
}

/** One measured figure. */
export interface Figure {
  label: string;
  spread: Spread;
  unit: Unit;
  /** Absolute numbers behind a ratio, e.g. "8.31 ms/turn (floor 8.10)". */
  detail?: string;
  target?: Target;
}

/** One scenario's results. */
export interface Section {
  title: string;
  /** One paragraph: what ran, how often, what is divided by what. */
  about: string;
  figures: Figure[];
  notes: string[];
  /** Anything that makes the comparison invalid; printed loudly, and the run exits non-zero. */
  problems: string[];
}

/** Min, median and max of the finite samples (the median of an even count is the mean of the middle two). */
export function summarize(all: readonly number[]): Spread {
  const samples = all.filter(Number.isFinite); // a failed run is a NaN, reported as a problem elsewhere
  if (samples.length === 0) return { min: Number.NaN, median: Number.NaN, max: Number.NaN };
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { min: sorted[0], median, max: sorted[sorted.length - 1] };
}

/** A target of at most `limit`, judged on the median of `spread`. */
export function atMost(spread: Spread, limit: number, text: string): Target {
  return { text, limit, met: spread.median <= limit };
}

/** A target of strictly less than `limit`, judged on the median of `spread` ("under 2%"). */
export function under(spread: Spread, limit: number, text: string): Target {
  return { text, limit, met: spread.median < limit };
}

/** A target that holds or not, whatever the figure's numbers: met when `held`. */
export function check(held: boolean, text: string): Target {
  return { text, met: held };
}

/** A difference in its unit, with its sign: "+0.12 ms", "-45 µs". */
export function formatDelta(value: number, unit: Unit): string {
  return `${value >= 0 ? "+" : "-"}${formatValue(Math.abs(value), unit)}`;
}

/** A number in its unit, as the report prints it. */
export function formatValue(value: number, unit: Unit): string {
  if (!Number.isFinite(value)) return "n/a";
  switch (unit) {
    case "x":
      return `${value.toFixed(value < 10 ? 3 : 1)}x`;
    case "ms":
      return `${value.toFixed(value < 100 ? 2 : 0)} ms`;
    case "µs":
      return `${value.toFixed(0)} µs`;
    case "KB":
      return `${value.toFixed(value < 10 ? 2 : 1)} KB`;
    case "MB":
      return `${value.toFixed(1)} MB`;
    case "s":
      return `${value.toFixed(2)} s`;
    case "%":
      return `${value.toFixed(0)}%`;
  }
}
