export * from "./agent-loop.ts";
export * from "./allow-rules.ts";
export * from "./decide.ts";
export * from "./decision.ts";
export * from "./default-denies.ts";
export * from "./load-settings.ts";
export {
  askTheUser,
  type PermissionStart,
  permissionsCli,
  readPermissionStart,
  S05_OPTIONS,
  sayWhereTheTraceIs,
} from "./main.ts";
export * from "./parse-rule.ts";
export * from "./permission-gate.ts";
export * from "./permission-mode.ts";
export type { ShellWord } from "./read-word.ts";
export * from "./rule-tools.ts";
export * from "./save-allow-rules.ts";
export * from "./settings-error.ts";
export * from "./split-command.ts";
