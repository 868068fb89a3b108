/**
 * The HTML viewer, checked as a page: written to a file, opened from file:// in the headless
 * browser the machine has (without one the browser tests report themselves skipped), with every
 * network request blocked and recorded. Nothing here downloads a browser.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { REPO_ROOT } from "@harness/cli";
import { reply, text, textReply, toolUse } from "@harness/scripted-model";
import { historyProblems } from "@harness/shared";
import { BROWSER_ARGS, findTestBrowser } from "@harness/testkit";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LoadedTrace } from "../src/viewer/read-trace.ts";
import { renderTraceHtml } from "../src/viewer/render-html.ts";
import { type ScriptedTrace, scriptedTrace, tempDir } from "./scripted-trace.ts";

const BROWSER = findTestBrowser();
const INJECTION = '</script><b id="injected">not markup</b>';

/** Three turns: two reads at once; a command and a failing read; the answer. */
function threeTurns(): Promise<ScriptedTrace> {
  return scriptedTrace(
    [
      reply([text("Looking around."), toolUse("read_file", { path: "notes.txt" }), toolUse("glob", { pattern: "*" })]),
      reply([toolUse("bash", { command: "echo hello" }), toolUse("read_file", { path: "missing.txt" })]),
      textReply("notes.txt holds alpha and beta; missing.txt does not exist."),
    ],
    { prompts: ["What is in notes.txt?"], files: { "notes.txt": `alpha\nbeta\n${INJECTION}\n` } },
  );
}

describe("renderTraceHtml", () => {
  it("makes a page that loads nothing from anywhere: no scripts, styles or images by URL", async () => {
    const { trace, messages } = await threeTurns();
    const html = renderTraceHtml(trace);
    expect(html.startsWith("<!doctype html>")).toBe(true);
    expect(html).not.toMatch(/<(script|img|iframe)[^>]*\ssrc=/i);
    expect(html).not.toMatch(/<link\b/i);
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).not.toMatch(/\bfetch\(|XMLHttpRequest|import\(/);
    expect(historyProblems(messages)).toEqual([]);
  });

  it("embeds the trace so that no text in it can close the script element", async () => {
    const { trace, messages } = await threeTurns();
    const html = renderTraceHtml(trace);
    expect(html).not.toContain(INJECTION);
    expect(html.match(/<\/script>/g)).toHaveLength(2); // the data's and the drawing script's own
    const data = /<script id="trace-data" type="application\/json">(.*?)<\/script>/s.exec(html)?.[1] ?? "";
    expect(JSON.parse(data).turns[0].toolCalls[0].result).toContain(INJECTION);
    expect(historyProblems(messages)).toEqual([]);
  });

  it("fills the title and the data even when the trace id looks like a template marker", () => {
    const trace: LoadedTrace = { id: "__DATA__", path: "/t/__DATA__.jsonl", records: [], skippedLines: 0 };
    const html = renderTraceHtml(trace);
    expect(html).toContain("<title>trace __DATA__</title>");
    const data = /<script id="trace-data" type="application\/json">(.*?)<\/script>/s.exec(html)?.[1] ?? "";
    expect(JSON.parse(data).id).toBe("__DATA__");
  });

  it("sends each turn only the messages that were new in its request", async () => {
    const { trace, messages } = await threeTurns();
    const data = JSON.parse(
      /<script id="trace-data" type="application\/json">(.*?)<\/script>/s.exec(renderTraceHtml(trace))![1],
    );
    expect(data.turns.map((t: { messageCount: number }) => t.messageCount)).toEqual([1, 3, 5]);
    expect(data.turns.map((t: { newMessages: unknown[] }) => t.newMessages.length)).toEqual([1, 2, 2]);
    expect(historyProblems(messages)).toEqual([]);
  });
});

describe.skipIf(!BROWSER)("the trace viewer in a browser", () => {
  let context: BrowserContext;
  let profile: string;

  beforeAll(async () => {
    profile = mkdtempSync(join(tmpdir(), "s04-chromium-"));
    // a fresh profile; Playwright takes it as an argument here rather than as --user-data-dir
    context = await chromium.launchPersistentContext(profile, {
      executablePath: BROWSER,
      headless: true,
      args: [...BROWSER_ARGS],
    });
  }, 30_000);

  afterAll(async () => {
    await context?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  /** Write the page, open it with the network blocked; returns the page and the requests it tried. */
  async function open(
    trace: LoadedTrace,
  ): Promise<{ page: Page; url: string; blocked: string[]; requested: string[] }> {
    const file = join(tempDir("s04-view-"), `${trace.id}.html`);
    writeFileSync(file, renderTraceHtml(trace));
    const url = pathToFileURL(file).href;
    const page = await context.newPage();
    const blocked: string[] = [];
    const requested: string[] = [];
    page.on("request", (request) => requested.push(request.url()));
    await page.route("**/*", (route) => {
      if (route.request().url() === url) return route.continue();
      blocked.push(route.request().url());
      return route.abort();
    });
    await page.goto(url);
    await page.waitForSelector("body[data-rendered=true]", { timeout: 10_000 });
    return { page, url, blocked, requested };
  }

  it("draws a 3-turn trace from file:// without a network request", async () => {
    const { trace, messages } = await threeTurns();
    const { page, url, blocked, requested } = await open(trace);

    expect(await page.locator("details.turn").count()).toBe(3);
    expect(await page.locator("#turns > details.turn").count()).toBe(3);
    expect(await page.locator("#turns .tool-call .name").allTextContents()).toEqual([
      "read_file",
      "glob",
      "bash",
      "read_file",
    ]);
    expect(await page.locator("#stop-reason").textContent()).toBe("final_answer");
    expect(await page.locator("#turn-count").textContent()).toBe("3 turns");
    expect(await page.locator("#tool-calls").textContent()).toBe("4 tool calls");
    expect(await page.locator("#tokens").textContent()).toMatch(/^\d+ in \/ \d+ out tokens$/);
    expect(await page.locator("#title").textContent()).toBe("trace test-trace");

    // the timeline: a model bar per turn, a tool bar per call, the failed call marked
    expect(await page.locator("#timeline .bar.model").count()).toBe(3);
    expect(await page.locator("#timeline .bar.tool").count()).toBe(4);
    expect(await page.locator("#timeline .bar.tool.error").count()).toBe(1);
    expect(await page.locator("#turns .tool-call.error .name").allTextContents()).toEqual(["read_file"]);

    // text in the trace is text, never markup
    expect(await page.locator("#injected").count()).toBe(0);

    await page.screenshot({ path: join(artifacts(), "trace-view.png"), fullPage: true });
    expect(blocked).toEqual([]);
    expect(requested).toEqual([url]);
    await page.close();
    expect(historyProblems(messages)).toEqual([]);
  }, 30_000);

  it("shows a tool call's input and output when it is expanded", async () => {
    const { trace, messages } = await threeTurns();
    const { page, blocked } = await open(trace);

    const firstTurn = page.locator("details.turn").first();
    await firstTurn.locator(":scope > summary").click();
    const call = firstTurn.locator(".tool-call").first();
    expect(await call.locator("pre.input").count()).toBe(0); // drawn only when opened
    await call.locator("summary").click();
    expect(JSON.parse((await call.locator("pre.input").textContent()) ?? "")).toEqual({ path: "notes.txt" });
    const output = (await call.locator("pre.result").textContent()) ?? "";
    expect(output).toContain("1\talpha\n2\tbeta");
    expect(output).toContain(INJECTION);
    expect(await call.locator("pre.input").isVisible()).toBe(true);

    // the request's messages open the same way
    const sent = firstTurn.locator("details.messages");
    await sent.locator("summary").click();
    expect(JSON.parse((await sent.locator("pre").textContent()) ?? "")).toEqual([
      { role: "user", content: "What is in notes.txt?" },
    ]);

    await page.screenshot({ path: join(artifacts(), "trace-view-expanded.png"), fullPage: true });
    expect(blocked).toEqual([]);
    await page.close();
    expect(historyProblems(messages)).toEqual([]);
  }, 30_000);

  it("says how many lines of a killed run it skipped", async () => {
    const { trace, messages } = await threeTurns();
    const { page } = await open({ ...trace, records: trace.records.slice(0, 2), skippedLines: 1 });
    expect(await page.locator("details.turn").count()).toBe(2);
    expect(await page.locator("#stop-reason").textContent()).toBe("(running or killed)");
    expect(await page.locator("#skipped").textContent()).toBe("1 unreadable line skipped");
    await page.close();
    expect(historyProblems(messages)).toEqual([]);
  }, 30_000);
});

/** test-artifacts/ at the repository root (gitignored). */
function artifacts(): string {
  const dir = join(REPO_ROOT, "test-artifacts");
  mkdirSync(dir, { recursive: true });
  return dir;
}
