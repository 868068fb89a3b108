export * from "./add-message.ts";
export * from "./agent-loop.ts";
export * from "./format-sessions.ts";
export * from "./interrupted-results.ts";
export * from "./lock-session.ts";
export {
  chooseSession,
  S07_OPTIONS,
  S07_PARTS,
  SESSIONS_OFFERED,
  type SessionsCliOptions,
  type SessionsCliParts,
  sessionsCli,
} from "./main.ts";
export * from "./open-session.ts";
export * from "./read-transcript.ts";
export * from "./sessions-dir.ts";
export * from "./transcript-record.ts";
export * from "./transcript-writer.ts";
