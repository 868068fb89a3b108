export * from "./abortable-stop-reason.ts";
export * from "./agent-loop.ts";
export * from "./stream-turn.ts";
