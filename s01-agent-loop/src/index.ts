export * from "./agent-loop.ts";
export * from "./run-tool.ts";
