/**
 * How fast `trace view` draws a big trace: a trace of ITERATIONS iterations (runs of 10 model calls,
 * written by s04's loop against the scripted model), turned into a page by renderTraceHtml and
 * opened from file:// in headless Chromium, every other request blocked. Timed on the page's own
 * clock, from navigation start to the first frame painted after the page's script marks
 * body[data-rendered=true]. Interleaved with it, the page for the trace's first run alone (10
 * iterations): what opening any trace costs.
 *
 * The browser is the one the machine has (testkit's findBrowser: CHROME_PATH, chromium or Chrome
 * on PATH, ...). Nothing here downloads a browser: without one the scenario reports the figure as
 * not measured.
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import Anthropic from "@anthropic-ai/sdk";
import { sendStreamed } from "@harness/s03-streaming";
import {
  agentLoop,
  type LoadedTrace,
  readTrace,
  renderTraceHtml,
  TraceRecorder,
  TraceWriter,
} from "@harness/s04-tracing";
import { BROWSER_ARGS, findBrowser } from "@harness/testkit";
import { type BrowserContext, chromium } from "playwright-core";
import { readTurnsPrompt, writeReadTurnsFiles } from "../bench-brain.ts";
import { type Figure, formatValue, type Section, summarize, under } from "../section.ts";
import { startBenchServer } from "../start-bench-server.ts";

/** Iterations in the trace. */
export const ITERATIONS = 1000;
/** The target: the page of a 1,000-iteration trace is drawn in under a second. */
export const TARGET_MS = 1000;
const TURNS_PER_RUN = 10;

/** How the trace-view scenario runs. */
export interface TraceViewOptions {
  /** Loads of each page before the counted ones; the very first is reported on its own. */
  warmup: number;
  /** Counted loads of each page. */
  reps: number;
}

/** A page's clock at two moments, from navigation start. */
interface PageTimes {
  rendered: number;
  painted: number;
}

/** Build the trace, then time its page and the first run's page in Chromium, interleaved. */
export async function traceView(o: TraceViewOptions): Promise<Section> {
  const browser = findBrowser();
  const about =
    `A trace of ${ITERATIONS.toLocaleString("en")} iterations (${ITERATIONS / TURNS_PER_RUN} runs of s04's loop, ${TURNS_PER_RUN} model ` +
    "calls each, on the scripted model), rendered by `renderTraceHtml` and opened from file:// in headless " +
    `Chromium (${browser.found ? browser.path : "none found"}), a new tab per load, every other request blocked. Timed on the page's clock from ` +
    "navigation start to the first frame painted after the script sets data-rendered. Interleaved with it, the page " +
    `of the trace's first run alone (${TURNS_PER_RUN} iterations). ${o.warmup} warm-up loads of each, then ${o.reps} counted.`;
  const painted = `${ITERATIONS.toLocaleString("en")}-iteration trace: navigation → first frame painted`;
  const target = `< ${TARGET_MS} ms (renders in under a second)`;
  if (!browser.found) {
    const none = summarize([]);
    return {
      title: "Trace view: a 1,000-iteration trace in the browser",
      about,
      figures: [
        {
          label: painted,
          spread: none,
          unit: "ms",
          detail: `not measured: ${browser.reason} (no browser is downloaded)`,
          target: under(none, TARGET_MS, target),
        },
      ],
      notes: [],
      problems: [],
    };
  }

  const dir = mkdtempSync(join(tmpdir(), "bench-trace-view-"));
  const problems: string[] = [];
  let context: BrowserContext | undefined;
  try {
    const trace = await buildTrace(dir);
    const iterations = trace.records.filter((r) => r.type === "iteration").length;
    if (iterations !== ITERATIONS) problems.push(`the trace holds ${iterations} iterations, not ${ITERATIONS}`);
    const started = performance.now();
    const html = renderTraceHtml(trace);
    const renderHtmlMs = performance.now() - started;
    const pages = {
      big: { file: join(dir, "big.html"), turns: iterations },
      small: { file: join(dir, "small.html"), turns: TURNS_PER_RUN },
    };
    writeFileSync(pages.big.file, html);
    writeFileSync(pages.small.file, renderTraceHtml({ ...trace, records: trace.records.filter((r) => r.run === 0) }));

    context = await chromium.launchPersistentContext(join(dir, "chromium-profile"), {
      executablePath: browser.path,
      headless: true,
      args: [...BROWSER_ARGS],
    });
    await context.addInitScript(markPaint);
    let blocked = 0;
    await context.route("**/*", (route) => {
      if (route.request().url().startsWith("file:")) return route.continue();
      blocked++;
      return route.abort();
    });

    const times = { big: [] as PageTimes[], small: [] as PageTimes[] };
    let first: PageTimes | undefined;
    for (let rep = -o.warmup; rep < o.reps; rep++) {
      for (const which of rep % 2 === 0 ? (["big", "small"] as const) : (["small", "big"] as const)) {
        const load = await loadPage(context, pages[which].file, pages[which].turns, problems);
        if (which === "big" && !first) first = load;
        if (rep >= 0 && load) times[which].push(load);
      }
    }
    const version = await browserVersion(context);

    const bigPainted = summarize(times.big.map((t) => t.painted));
    const figures: Figure[] = [
      {
        label: painted,
        spread: bigPainted,
        unit: "ms",
        detail:
          `page ${kilobytes(pages.big.file)} from a ` +
          `${formatValue(statSync(trace.path).size / 2 ** 20, "MB")} trace; renderTraceHtml took ` +
          `${formatValue(renderHtmlMs, "ms")} in Node (not counted)`,
        target: under(bigPainted, TARGET_MS, target),
      },
      {
        label: `${ITERATIONS.toLocaleString("en")}-iteration trace: navigation → data-rendered (script done)`,
        spread: summarize(times.big.map((t) => t.rendered)),
        unit: "ms",
      },
      {
        label: `first run alone (${TURNS_PER_RUN} iterations): navigation → first frame painted`,
        spread: summarize(times.small.map((t) => t.painted)),
        unit: "ms",
        detail: `page ${kilobytes(pages.small.file)}: what opening any trace costs`,
      },
    ];
    const notes = [
      `Browser (as its user agent names it): ${version}. Requests blocked: ${blocked}.`,
      first
        ? `The first load of the ${ITERATIONS.toLocaleString("en")}-iteration page in the fresh browser (a warm-up load, not counted): ` +
          `data-rendered at ${formatValue(first.rendered, "ms")}, painted at ${formatValue(first.painted, "ms")}.`
        : "",
    ].filter(Boolean);
    if (problems.length === 0) {
      notes.push(
        `Equal work checked: every load of each page drew all its turns (${iterations} and ${TURNS_PER_RUN}).`,
      );
    }
    return { title: "Trace view: a 1,000-iteration trace in the browser", about, figures, notes, problems };
  } finally {
    await context?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The trace: ITERATIONS iterations written by s04's loop, against the scripted model in its own process. */
async function buildTrace(dir: string): Promise<LoadedTrace> {
  writeReadTurnsFiles(dir, TURNS_PER_RUN - 1);
  const writer = new TraceWriter("bench-view", join(dir, "traces"), []);
  const server = await startBenchServer();
  try {
    const client = sendStreamed(new Anthropic({ apiKey: "bench", baseURL: server.url }));
    const recorder = new TraceRecorder(writer);
    for (let run = 0; run < ITERATIONS / TURNS_PER_RUN; run++) {
      await agentLoop(client, [{ role: "user", content: readTurnsPrompt(TURNS_PER_RUN - 1) }], {
        model: "scripted-model",
        cwd: dir,
        maxTurns: TURNS_PER_RUN + 5,
        emit: recorder.record,
      });
    }
  } finally {
    await server.close();
  }
  return readTrace(writer.path);
}

/**
 * Runs in the page before its own script: note the page's clock when data-rendered is set, and
 * two animation frames later, when that state has been laid out and painted.
 */
function markPaint(): void {
  const w = window as unknown as { __rendered?: number; __painted?: number };
  new MutationObserver((_, observer) => {
    if (document.body?.dataset.rendered !== "true") return;
    w.__rendered = performance.now();
    observer.disconnect();
    requestAnimationFrame(() =>
      requestAnimationFrame(() => {
        w.__painted = performance.now();
      }),
    );
  }).observe(document, { attributes: true, subtree: true, attributeFilter: ["data-rendered"] });
}

/** Open `file` in a new tab, wait for the paint, check every turn was drawn; undefined when it failed. */
async function loadPage(
  context: BrowserContext,
  file: string,
  turns: number,
  problems: string[],
): Promise<PageTimes | undefined> {
  const page = await context.newPage();
  try {
    await page.goto(pathToFileURL(file).href);
    await page.waitForFunction(() => (window as unknown as { __painted?: number }).__painted !== undefined, null, {
      timeout: 60_000,
    });
    const seen = await page.evaluate(() => {
      const w = window as unknown as { __rendered: number; __painted: number };
      return { rendered: w.__rendered, painted: w.__painted, turns: document.querySelectorAll("details.turn").length };
    });
    if (seen.turns !== turns) {
      problems.push(`a load drew ${seen.turns} turns, not ${turns}`);
      return undefined;
    }
    return { rendered: seen.rendered, painted: seen.painted };
  } catch (error) {
    problems.push(`a load failed: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  } finally {
    await page.close();
  }
}

/** A file's size in KB. */
function kilobytes(file: string): string {
  return `${(statSync(file).size / 1024).toFixed(0)} KB`;
}

/** The browser's own name for itself, e.g. "HeadlessChrome/131.0.6778.85". */
async function browserVersion(context: BrowserContext): Promise<string> {
  const page = await context.newPage();
  try {
    return (await page.evaluate(() => navigator.userAgent)).match(/HeadlessChrome\/[\d.]+|Chrome\/[\d.]+/)?.[0] ?? "?";
  } finally {
    await page.close();
  }
}
