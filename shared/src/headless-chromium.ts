/**
 * How every browser test and benchmark starts Chromium: Debian's binary (no tool may download
 * its own browser), headless, with the background networking that this closed network refuses
 * turned off. Pass a fresh profile directory to Playwright's launchPersistentContext, which takes
 * it as an argument rather than as --user-data-dir.
 */

/** Debian's Chromium (`apt-get install chromium`, done by .ci/run). */
export const CHROMIUM_PATH = "/usr/bin/chromium";

/** The launch flags DEVELOPERS.md names. */
export const CHROMIUM_ARGS: readonly string[] = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
