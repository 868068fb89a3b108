export * from "./agent-loop.ts";
export * from "./dispatch.ts";
export * from "./repeat-guard.ts";
export * from "./run-tool-calls.ts";
export * from "./stream-turn.ts";
export * from "./terminal-observer.ts";
export * from "./tool.ts";
export * from "./tools/index.ts";
