/**
 * Finding the browser that the tests and benchmarks which open a page run in: one the machine
 * already has. Nothing here downloads a browser. Without one, a browser test reports itself
 * skipped and says in one line what to install; with HARNESS_REQUIRE_BROWSER=1 (set by .ci/run)
 * a missing browser is a failure instead.
 *
 * Left out: launching it (each test launches it with Playwright, `executablePath` set to what this
 * finds, and `BROWSER_ARGS`).
 */
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, join } from "node:path";

/** Variables that name a browser, read first and in this order: the course's own, then the common one. */
export const BROWSER_VARIABLES = ["HARNESS_BROWSER", "CHROME_PATH"] as const;

/** Commands looked up on PATH, in this order: Debian's, Ubuntu's, then Google's packages. */
export const BROWSER_COMMANDS = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"] as const;

/** Where the macOS applications keep their binaries, looked at on macOS after PATH. */
export const MAC_BROWSER_PATHS = [
  "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
  "/Applications/Chromium.app/Contents/MacOS/Chromium",
] as const;

/** Set to 1, a missing browser fails the browser tests instead of skipping them (.ci/run sets it). */
export const REQUIRE_BROWSER_VARIABLE = "HARNESS_REQUIRE_BROWSER";

/** Headless, and the background networking a closed network refuses turned off. */
export const BROWSER_ARGS: readonly string[] = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** What the search found: a browser and where its name came from, or why there is none. */
export type BrowserSearch = { found: true; path: string; from: string } | { found: false; reason: string };

/** Where to look (tests pass their own). */
export interface FindBrowserOptions {
  /** Read for the variables and PATH (default: `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** `darwin` adds the macOS application paths (default: `process.platform`). */
  platform?: NodeJS.Platform;
}

/**
 * Find a browser: a variable's value if one is set (a path, or a command looked up on PATH), else
 * the first command found on PATH, else on macOS an application's binary.
 * Contract: never throws; a variable naming nothing runnable is a reason, not a fallback to search.
 */
export function findBrowser(options: FindBrowserOptions = {}): BrowserSearch {
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  const dirs = (env.PATH ?? "").split(delimiter).filter((dir) => dir !== "");
  for (const variable of BROWSER_VARIABLES) {
    const value = env[variable]?.trim();
    if (!value) continue;
    const path = value.includes("/") ? (isExecutableFile(value) ? value : undefined) : onPath(value, dirs);
    if (path) return { found: true, path, from: variable };
    return { found: false, reason: `${variable}=${value} is not an executable file` };
  }
  for (const command of BROWSER_COMMANDS) {
    const path = onPath(command, dirs);
    if (path) return { found: true, path, from: "PATH" };
  }
  if (platform === "darwin") {
    const path = MAC_BROWSER_PATHS.find(isExecutableFile);
    if (path) return { found: true, path, from: "Applications" };
  }
  const where = platform === "darwin" ? " on PATH or in /Applications" : " on PATH";
  return { found: false, reason: `no Chromium or Chrome found (${BROWSER_COMMANDS.join(", ")}${where})` };
}

/** Where the tests that need a browser find one (tests pass their own). */
export interface FindTestBrowserOptions extends FindBrowserOptions {
  /** Prints the one line about skipped tests (default: `console.warn`). */
  print?: (line: string) => void;
}

/**
 * The browser a test file runs its browser tests in, or `undefined` when there is none: then it
 * prints one line saying they are skipped and what to install, and the file skips them
 * (`describe.skipIf(!browser)`).
 * Contract: with HARNESS_REQUIRE_BROWSER=1 a missing browser throws, so the file fails.
 */
export function findTestBrowser(options: FindTestBrowserOptions = {}): string | undefined {
  const env = options.env ?? process.env;
  const search = findBrowser(options);
  if (search.found) return search.path;
  const advice = `${search.reason}: install Chromium (Debian/Ubuntu: apt-get install chromium; macOS: Google Chrome) or set CHROME_PATH`;
  if (env[REQUIRE_BROWSER_VARIABLE] === "1") {
    throw new Error(`browser tests need a browser (${REQUIRE_BROWSER_VARIABLE}=1): ${advice}`);
  }
  (options.print ?? console.warn)(`browser tests skipped: ${advice}`);
  return undefined;
}

function onPath(command: string, dirs: readonly string[]): string | undefined {
  return dirs.map((dir) => join(dir, command)).find(isExecutableFile);
}

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
