export * from "./agent-loop.ts";
export * from "./agent-stop-reason.ts";
export * from "./stream-turn.ts";
export * from "./terminal-observer.ts";
