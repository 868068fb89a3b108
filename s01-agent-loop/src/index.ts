export * from "./agent-loop.ts";
