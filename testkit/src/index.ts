export * from "./chapter-text.ts";
export * from "./clean-up-after.ts";
export * from "./cli-runner.ts";
export * from "./fault-case-on-format.ts";
export * from "./fault-matrix.ts";
export * from "./find-browser.ts";
export * from "./read-chapter-cli.ts";
export * from "./run-in-process.ts";
