export * from "./chapter-measures.ts";
export * from "./chapter-text.ts";
export * from "./clean-up-after.ts";
export * from "./cli-runner.ts";
export * from "./find-browser.ts";
export * from "./read-chapter-cli.ts";
export * from "./recorded-fixtures.ts";
export * from "./run-in-process.ts";
