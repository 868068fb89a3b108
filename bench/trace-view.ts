/**
 * How long `trace view` takes to draw a big trace: a 1,000-iteration trace (100 runs of 10 turns,
 * each with a read_file call, written by the real loop on the scripted model), rendered with
 * renderTraceHtml, opened from file:// in headless Chromium with the network blocked, timed from
 * navigation start to body[data-rendered=true] (the page's own clock), over several loads.
 *
 * Chromium is Debian's, at /usr/bin/chromium; nothing here downloads a browser.
 * Run from the repository root: node --import tsx bench/trace-view.ts
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { agentLoop, readTrace, renderTraceHtml, TraceWriter } from "@harness/s03-tracing";
import { appendUserText, reply, ScriptedModel, text, textReply, toolUse } from "@harness/shared";
import { chromium } from "playwright-core";

/** Iterations in the trace. */
export const ITERATIONS = 1000;
const TURNS_PER_RUN = 10;
/** Measured page loads (after one warm-up load that is not counted). */
const LOADS = 7;
/** The target: the viewer draws a 1,000-iteration trace in under a second. */
export const TARGET_MS = 1000;
const CHROMIUM = "/usr/bin/chromium";

// build the trace with the real loop
const cwd = mkdtempSync(join(tmpdir(), "bench-view-"));
for (let i = 1; i < TURNS_PER_RUN; i++) writeFileSync(join(cwd, `file-${i}.txt`), `line one of ${i}\nline two\n`);
const model = new ScriptedModel({
  brain: (request) => {
    const done = (request.messages.length - 1) / 2;
    if (done < TURNS_PER_RUN - 1) {
      return reply([text(`Reading file ${done + 1}.`), toolUse("read_file", { path: `file-${done + 1}.txt` })]);
    }
    return textReply("I read every file.");
  },
});
const writer = new TraceWriter("bench-view", join(cwd, ".traces"), []);
for (let run = 0; run < ITERATIONS / TURNS_PER_RUN; run++) {
  const messages: MessageParam[] = [];
  appendUserText(messages, `Read the files (run ${run + 1}).`);
  await agentLoop(model.client(), messages, { model: "bench-model", cwd, maxTurns: TURNS_PER_RUN, trace: writer });
}
const trace = readTrace(writer.path);
const iterations = trace.records.filter((r) => r.type === "iteration").length;
if (iterations !== ITERATIONS) throw new Error(`expected ${ITERATIONS} iterations, built ${iterations}`);
const renderStart = performance.now();
const html = renderTraceHtml(trace);
const renderHtmlMs = performance.now() - renderStart;
const file = join(cwd, "bench-view.html");
writeFileSync(file, html);
const url = pathToFileURL(file).href;

console.log("trace view: a 1,000-iteration trace drawn in headless Chromium");
console.log(
  `  ${iterations} iterations (${ITERATIONS / TURNS_PER_RUN} runs of ${TURNS_PER_RUN} turns), ` +
    `trace ${(statSync(writer.path).size / 1e6).toFixed(1)} MB, page ${(statSync(file).size / 1e6).toFixed(2)} MB ` +
    `(renderTraceHtml took ${renderHtmlMs.toFixed(0)} ms in node)`,
);
console.log(`  node ${process.version}, ${cpus().length} CPUs, load average ${loadavg()[0].toFixed(2)} at start`);

const profile = mkdtempSync(join(tmpdir(), "bench-chromium-"));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: CHROMIUM,
  headless: true,
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
});
// the page's own clock: performance.now() counts from navigation start; the observer fires as soon
// as the script sets data-rendered, and two animation frames later the page has been laid out and painted
await context.addInitScript(() => {
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
});

const rendered: number[] = [];
const painted: number[] = [];
let blocked = 0;
for (let load = 0; load <= LOADS; load++) {
  const page = await context.newPage();
  await page.route("**/*", (route) => {
    if (route.request().url() === url) return route.continue();
    blocked++;
    return route.abort();
  });
  await page.goto(url);
  await page.waitForFunction(() => (window as unknown as { __painted?: number }).__painted !== undefined, null, {
    timeout: 60_000,
  });
  const times = await page.evaluate(() => {
    const w = window as unknown as { __rendered: number; __painted: number };
    return { rendered: w.__rendered, painted: w.__painted, turns: document.querySelectorAll("details.turn").length };
  });
  if (times.turns !== ITERATIONS) throw new Error(`the page drew ${times.turns} turns, not ${ITERATIONS}`);
  await page.close();
  if (load === 0) continue; // warm-up
  rendered.push(times.rendered);
  painted.push(times.painted);
  console.log(
    `  load ${load}: data-rendered at ${times.rendered.toFixed(0)} ms, painted at ${times.painted.toFixed(0)} ms`,
  );
}
await context.close();
rmSync(profile, { recursive: true, force: true });
rmSync(cwd, { recursive: true, force: true });

const stats = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return { min: sorted[0], median: sorted[Math.floor(sorted.length / 2)], max: sorted.at(-1)! };
};
const r = stats(rendered);
const p = stats(painted);
const ms = (v: number) => `${v.toFixed(0)} ms`;
console.log(`  navigation start → data-rendered: min ${ms(r.min)}  median ${ms(r.median)}  max ${ms(r.max)}`);
console.log(`  navigation start → next frame painted: min ${ms(p.min)}  median ${ms(p.median)}  max ${ms(p.max)}`);
console.log(`  network requests blocked: ${blocked}`);
console.log(
  r.median < TARGET_MS
    ? `  target "trace view of a 1,000-iteration trace renders in under 1 s": met (median ${ms(r.median)})`
    : `  target "trace view of a 1,000-iteration trace renders in under 1 s": MISSED (median ${ms(r.median)})`,
);
console.log(`  load average ${loadavg()[0].toFixed(2)} at the end`);
