export * from "./agent-loop.ts";
export * from "./agent-stop-reason.ts";
export * from "./clear-old-results.ts";
export * from "./compact-history.ts";
export * from "./context-budget.ts";
export * from "./context-keeper.ts";
export * from "./find-cut.ts";
export {
  CONTEXT_OVERFLOW_EXIT,
  type CompactionCliParts,
  type ContextSettings,
  compactionCli,
  contextSettings,
  describeSize,
  main as compactionMain,
  S08_OPTIONS,
  S08_PARTS,
} from "./main.ts";
export * from "./measure-context.ts";
export * from "./prompt-too-long.ts";
export * from "./request-summary.ts";
export * from "./send-turn.ts";
export * from "./server-context-management.ts";
export * from "./transcript-boundary.ts";
