export * from "./agent-loop.ts";
export * from "./dispatch.ts";
export * from "./run-tool-calls.ts";
export * from "./tool.ts";
export * from "./tools/index.ts";
