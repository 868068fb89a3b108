export * from "./agent-definitions.ts";
export * from "./agent-loop.ts";
export * from "./sidechain.ts";
export * from "./subagent-lines.ts";
export * from "./subagent-stop.ts";
export * from "./subagents.ts";
export * from "./token-budget.ts";
