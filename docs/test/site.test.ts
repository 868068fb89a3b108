/**
 * The course site as a reader opens it: built into a temporary directory the way `pnpm run docs`
 * builds it, then opened from file:// in the headless browser the machine has (testkit's
 * findTestBrowser: without one these tests report themselves skipped), with every request that
 * would leave the machine blocked and recorded. Screenshots go to test-artifacts/ at the repository
 * root (gitignored).
 *
 * The build here does not treat warnings as errors: `pnpm run docs` is the gate for broken links
 * and undocumented exports. This test is about what a reader sees.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import * as testkit from "@harness/testkit";
import { BROWSER_ARGS, findTestBrowser } from "@harness/testkit";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildSite, type SiteBuild } from "../src/build-site.ts";
import { findChapters, REPO_ROOT } from "../src/find-chapters.ts";

const BROWSER = findTestBrowser();
const CHAPTERS = findChapters().map((chapter) => chapter.folder);

describe("the course site", () => {
  let site: SiteBuild;

  beforeAll(async () => {
    site = await buildSite({ out: mkdtempSync(join(tmpdir(), "docs-site-")), strict: false, print: false });
  }, 180_000);

  afterAll(() => {
    if (site) rmSync(site.out, { recursive: true, force: true });
  });

  it("builds without an error, with shared and every chapter", () => {
    expect(site.errors).toEqual([]);
    expect(site.packages).toEqual(["shared", ...CHAPTERS]);
    expect(existsSync(join(site.out, "index.html"))).toBe(true);
  });

  it("leaves the test infrastructure out of the API reference", () => {
    const pages = readdirSync(site.out, { recursive: true }).map(String);
    expect(pages.length).toBeGreaterThan(10);
    const named = (name: string) => pages.filter((page) => page.endsWith(`.${name}.html`));
    expect(named("historyProblems").length).toBeGreaterThan(0); // a page per export, as checked below
    expect(Object.keys(testkit).flatMap(named)).toEqual([]);
    expect(pages.filter((page) => /testkit/i.test(page))).toEqual([]);
  });

  describe.skipIf(!BROWSER)("in a browser", () => {
    let context: BrowserContext;
    let profile: string;
    /** Every request a page made, and those that were blocked for leaving the machine. */
    const requested: string[] = [];
    const blocked: string[] = [];

    beforeAll(async () => {
      profile = mkdtempSync(join(tmpdir(), "docs-chromium-"));
      // a fresh profile; Playwright takes it as an argument here rather than as --user-data-dir
      context = await chromium.launchPersistentContext(profile, {
        executablePath: BROWSER,
        headless: true,
        viewport: { width: 1400, height: 1000 },
        args: [...BROWSER_ARGS],
      });
    }, 180_000);

    afterAll(async () => {
      await context?.close();
      if (profile) rmSync(profile, { recursive: true, force: true });
    });

    /** Open a page of the site from file:// and wait until its sidebar is drawn. */
    async function open(path: string): Promise<Page> {
      const page = await context.newPage();
      page.on("request", (request) => requested.push(request.url()));
      await page.route("**/*", (route) => {
        const url = route.request().url();
        if (url.startsWith(pathToFileURL(site.out).href)) return route.continue();
        blocked.push(url);
        return route.abort();
      });
      await page.goto(pathToFileURL(join(site.out, path)).href);
      await page.locator("#tsd-nav-container a").first().waitFor({ timeout: 15_000 });
      return page;
    }

    /** The sidebar's top-level entries, as their text. */
    async function sidebar(page: Page): Promise<string[]> {
      return page
        .locator("#tsd-nav-container > li > a, #tsd-nav-container > li > details > summary a")
        .allTextContents();
    }

    it("opens on the course home, with the docs pages and every chapter in its sidebar", async () => {
      const page = await open("index.html");
      await expect(page.title()).resolves.toContain("Build an agent harness");
      const main = page.locator(".col-content");
      await expect(main.locator("h1").first().textContent()).resolves.toBe("Build an agent harness");
      await expect(main.textContent()).resolves.toContain("The loop every chapter keeps");

      const entries = await sidebar(page);
      for (const title of [
        "Glossary",
        "Architecture",
        "构建一个智能体运行框架",
        "术语表",
        "架构",
        "shared",
        ...CHAPTERS,
      ]) {
        expect(entries, `the sidebar lists ${title}`).toContain(title);
      }
      // the chapters in course order
      const order = entries.filter((entry) => CHAPTERS.includes(entry));
      expect(order).toEqual(CHAPTERS);

      // the chapter map links each chapter to its page
      const map = main.locator("table").first();
      await expect(map.locator('a[href="modules/s01-agent-loop.html"]').textContent()).resolves.toBe("s01-agent-loop");
      await page.screenshot({ path: join(artifacts(), "docs-home.png"), fullPage: true });
      await page.close();
    }, 30_000);

    it("shows a chapter: its title, its text, its diagram, its API, and links back", async () => {
      const page = await open("modules/s01-agent-loop.html");
      const main = page.locator(".col-content");
      await expect(main.locator("h1").allTextContents()).resolves.toEqual(
        expect.arrayContaining(["Module s01-agent-loop", "s01: The agent loop"]),
      );
      const text = await main.textContent();
      expect(text).toContain("An agent is a loop.");
      expect(text).toContain("Builds on: shared · Adds:");
      expect(text).toContain("The whole loop");

      // the loop diagram is drawn, not left as source
      const diagram = main.locator("figure.mermaid-diagram svg");
      await expect(diagram.count()).resolves.toBe(1);
      await expect(diagram.textContent()).resolves.toContain("tool calls?");

      // its API reference, and the way back: the course home and the page it builds on
      await expect(
        main.locator('a[href="../functions/s01-agent-loop.agentLoop.html"]').count(),
      ).resolves.toBeGreaterThan(0);
      await expect(main.locator('a[href="../index.html"]').textContent()).resolves.toBe("The course");
      await expect(main.locator('a[href="shared.html"]').textContent()).resolves.toBe("shared");
      await expect(page.locator(".tsd-navigation a.current").first().textContent()).resolves.toBe("s01-agent-loop");
      await page.screenshot({ path: join(artifacts(), "docs-s01-agent-loop.png"), fullPage: true });

      // the home page is one click away
      await page.locator('header a.title[href="../index.html"]').click();
      await page.waitForURL(/\/index\.html$/);
      await page.close();
    }, 30_000);

    it("switches a chapter to its Chinese text", async () => {
      const page = await open("modules/s01-agent-loop.html");
      await page.locator(".col-content a", { hasText: "中文" }).first().click();
      await page.waitForURL(/documents\/s01-agent-loop\.README\.zh\.html$/);
      await page.locator("#tsd-nav-container a").first().waitFor();
      const main = page.locator(".col-content");
      await expect(main.locator("h1").allTextContents()).resolves.toContain("s01：智能体循环");
      const text = await main.textContent();
      expect(text).toContain("智能体就是一个循环。");
      expect(text).toContain("基于： shared · 新增：");
      await expect(main.locator("figure.mermaid-diagram svg").count()).resolves.toBe(1);
      // and back to the English
      await expect(main.locator("a", { hasText: "English" }).first().getAttribute("href")).resolves.toBe(
        "../modules/s01-agent-loop.html",
      );
      await page.screenshot({ path: join(artifacts(), "docs-s01-agent-loop.zh.png"), fullPage: true });
      await page.close();
    }, 30_000);

    it("loads everything from the site's own files", () => {
      expect(requested.length).toBeGreaterThan(0);
      expect(blocked).toEqual([]);
      expect(requested.filter((url) => !url.startsWith("file://"))).toEqual([]);
    });
  });
});

/** test-artifacts/ at the repository root (gitignored). */
function artifacts(): string {
  const dir = join(REPO_ROOT, "test-artifacts");
  mkdirSync(dir, { recursive: true });
  return dir;
}
