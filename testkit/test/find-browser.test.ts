import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { findBrowser, findTestBrowser } from "../src/find-browser.ts";

const root = mkdtempSync(join(tmpdir(), "find-browser-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let dirs = 0;
/** A fresh directory holding these files; `mode` 0o755 makes them executable. */
function dirWith(files: string[], mode = 0o755): string {
  const dir = join(root, `dir-${dirs++}`);
  mkdirSync(dir);
  for (const name of files) {
    writeFileSync(join(dir, name), "#!/bin/sh\n");
    chmodSync(join(dir, name), mode);
  }
  return dir;
}

const pathOf = (...dirs: string[]) => ({ PATH: dirs.join(delimiter) });

describe("findBrowser", () => {
  it("finds chromium on PATH", () => {
    const bin = dirWith(["chromium"]);
    expect(findBrowser({ env: pathOf(dirWith([]), bin), platform: "linux" })).toEqual({
      found: true,
      path: join(bin, "chromium"),
      from: "PATH",
    });
  });

  it.each(["chromium-browser", "google-chrome", "google-chrome-stable"])("finds %s on PATH", (name) => {
    const bin = dirWith([name]);
    expect(findBrowser({ env: pathOf(bin), platform: "linux" })).toMatchObject({ found: true, path: join(bin, name) });
  });

  it("prefers chromium to Chrome, whatever the order of PATH", () => {
    const chrome = dirWith(["google-chrome"]);
    const chromium = dirWith(["chromium"]);
    expect(findBrowser({ env: pathOf(chrome, chromium), platform: "linux" })).toMatchObject({
      path: join(chromium, "chromium"),
    });
  });

  it("passes over a file that is not executable, and a directory of the same name", () => {
    const plain = dirWith(["chromium"], 0o644);
    const withDir = dirWith([]);
    mkdirSync(join(withDir, "chromium"));
    const search = findBrowser({ env: pathOf(plain, withDir), platform: "linux" });
    expect(search).toEqual({
      found: false,
      reason: "no Chromium or Chrome found (chromium, chromium-browser, google-chrome, google-chrome-stable on PATH)",
    });
  });

  it("takes CHROME_PATH before PATH, as a path or as a command on PATH", () => {
    const mine = dirWith(["my-chrome"]);
    const onPath = dirWith(["chromium"]);
    const env = { ...pathOf(onPath, mine), CHROME_PATH: join(mine, "my-chrome") };
    expect(findBrowser({ env })).toEqual({ found: true, path: join(mine, "my-chrome"), from: "CHROME_PATH" });
    expect(findBrowser({ env: { ...env, CHROME_PATH: "my-chrome" } })).toMatchObject({ path: join(mine, "my-chrome") });
  });

  it("takes HARNESS_BROWSER before CHROME_PATH", () => {
    const bin = dirWith(["a", "b"]);
    const env = { PATH: "", HARNESS_BROWSER: join(bin, "a"), CHROME_PATH: join(bin, "b") };
    expect(findBrowser({ env })).toEqual({ found: true, path: join(bin, "a"), from: "HARNESS_BROWSER" });
  });

  it("says so when a variable names nothing runnable, rather than using another browser", () => {
    const onPath = dirWith(["chromium"]);
    const env = { ...pathOf(onPath), CHROME_PATH: join(root, "no-such-browser") };
    expect(findBrowser({ env })).toEqual({
      found: false,
      reason: `CHROME_PATH=${join(root, "no-such-browser")} is not an executable file`,
    });
  });

  it("ignores a variable set to spaces", () => {
    const bin = dirWith(["chromium"]);
    expect(findBrowser({ env: { ...pathOf(bin), CHROME_PATH: "  " } })).toMatchObject({ from: "PATH" });
  });

  it("finds nothing with no PATH at all, and names the applications on macOS", () => {
    expect(findBrowser({ env: {}, platform: "linux" })).toMatchObject({ found: false });
    const mac = findBrowser({ env: {}, platform: "darwin" });
    // a Mac running this test may have Chrome installed; anywhere else the search says where it looked
    if (!mac.found) expect(mac.reason).toMatch(/ on PATH or in \/Applications\)$/);
  });
});

describe("findTestBrowser", () => {
  it("returns the browser and prints nothing when there is one", () => {
    const bin = dirWith(["chromium"]);
    const printed: string[] = [];
    expect(findTestBrowser({ env: pathOf(bin), platform: "linux", print: (l) => printed.push(l) })).toBe(
      join(bin, "chromium"),
    );
    expect(printed).toEqual([]);
  });

  it("prints one line saying the browser tests are skipped and what to install, and returns undefined", () => {
    const printed: string[] = [];
    expect(findTestBrowser({ env: {}, platform: "linux", print: (l) => printed.push(l) })).toBeUndefined();
    expect(printed).toHaveLength(1);
    expect(printed[0]).toMatch(/^browser tests skipped: no Chromium or Chrome found .*: install Chromium /);
    expect(printed[0]).toContain("apt-get install chromium");
    expect(printed[0]).toContain("CHROME_PATH");
    expect(printed[0]).not.toContain("\n");
  });

  it("throws instead with HARNESS_REQUIRE_BROWSER=1", () => {
    const printed: string[] = [];
    const env = { HARNESS_REQUIRE_BROWSER: "1" };
    expect(() => findTestBrowser({ env, platform: "linux", print: (l) => printed.push(l) })).toThrow(
      /^browser tests need a browser \(HARNESS_REQUIRE_BROWSER=1\): no Chromium or Chrome found/,
    );
    expect(printed).toEqual([]);
    const bin = dirWith(["chromium"]);
    expect(findTestBrowser({ env: { ...env, ...pathOf(bin) } })).toBe(join(bin, "chromium"));
  });
});
