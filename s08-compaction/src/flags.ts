/**
 * s08's options, and what they build: `--context-window N` sets the window (offline, the scripted
 * model's too: it then refuses a longer request as the API does), `--compaction` chooses who keeps
 * the history inside it. After each answer a line says how full the context is; `/compact
 * [instructions]` summarises by hand; a resumed session goes on from its last compaction.
 */
import type { CliOptions, ExtraOption, ReplCommand } from "@harness/cli";
import { type ToolMap, toApiTool } from "@harness/s02-tool-dispatch";
import type { SendTurn } from "@harness/s03-streaming";
import { type OpenSession, readTranscript } from "@harness/s07-sessions";
import { historySinceBoundary, writeBoundary } from "./compaction/transcript-boundary.ts";
import {
  COMPACTION_MODES,
  type CompactionMode,
  type ContextEvent,
  ContextWindow,
  type ContextWindowOptions,
  isCompactionMode,
} from "./context-window.ts";
import type { ContextSize } from "./measure-context.ts";
import type { PromptTooLong } from "./prompt-too-long.ts";

/** The window, and who keeps the history in it. */
export const WINDOW_FLAGS: readonly ExtraOption[] = [
  {
    name: "context-window",
    type: "string",
    help: "--context-window N  the model's context window in tokens (default: the model's; offline, the scripted\n                      model's too, which then refuses a longer request)",
  },
  {
    name: "compaction",
    type: "string",
    help: `--compaction M      who keeps the history inside the window: ${COMPACTION_MODES.join(", ")} (default client)`,
  },
];

/** What s08 adds to the command line, read from its options. */
export interface WindowSettings {
  /** `--context-window`, when given. */
  contextWindow?: number;
  compaction: CompactionMode;
}

/** `--context-window` and `--compaction`, checked. Contract: a bad one throws one line. */
export function readWindowSettings({ extra }: CliOptions): WindowSettings {
  const compaction = extra.compaction ?? "client";
  if (!isCompactionMode(compaction)) {
    throw new Error(`--compaction: "${compaction}" is not a mode; use one of ${COMPACTION_MODES.join(", ")}`);
  }
  const raw = extra["context-window"];
  if (raw === undefined) return { compaction };
  const window = Number(raw);
  if (!Number.isInteger(window) || window < 1) {
    throw new Error(`--context-window expects a whole number of tokens of at least 1, got ${JSON.stringify(raw)}`);
  }
  return { compaction, contextWindow: window };
}

/** How main.ts opens the window: where its calls go, for which model, with what tools, told to whom. */
export interface OpenWindowOptions {
  /** The model call below the window (s03's `sendStreamed`, s09's adapter). */
  send: SendTurn;
  /** Reads the provider's "too long" refusal (default: the Messages API's). */
  tooLong?: (error: unknown) => PromptTooLong | null;
  model: string;
  /** The tools the loop offers (the first request's are known before it is sent). */
  tools: ToolMap;
  /** Told the context's changes, a refused call and its resend. */
  emit: NonNullable<ContextWindowOptions["emit"]>;
  /** One line for an error that failed a summary call. */
  describeError?: (error: unknown) => string;
}

/** The window the options set (`readWindowSettings`), on `send`. */
export function openWindow(settings: WindowSettings, options: OpenWindowOptions): ContextWindow {
  const { tools, ...rest } = options;
  return new ContextWindow({
    ...rest,
    mode: settings.compaction,
    contextWindow: settings.contextWindow,
    tools: [...tools.values()].map(toApiTool),
  });
}

/** A resumed session's history from its last compaction on: the summary and the tail, not the whole past. */
export function historyFromBoundary(session: OpenSession, say: (line: string) => void): OpenSession["history"] {
  if (session.writer.lastId === null) return session.history;
  const history = historySinceBoundary(readTranscript(session.writer.path).records);
  if (history.length < session.history.length) {
    say(`loaded from the last compaction: ${history.length} of ${session.history.length} messages`);
  }
  return history;
}

/** Writes each compaction into the session's transcript as a boundary a resume starts from. */
export function boundaryWriter(session: OpenSession) {
  return (event: { type: string }): void => {
    const heard = event as ContextEvent;
    if (heard.type === "context" && heard.change.kind === "compacted") writeBoundary(session.writer, heard.messages);
  };
}

/**
 * The context's lines for the user: one for each change as it happens, and `afterRun` the size
 * the last response measured.
 */
export function contextLines(note: (line: string) => void) {
  let size: ContextSize | undefined;
  return {
    /** The listener. */
    show(event: { type: string }): void {
      const heard = event as ContextEvent;
      if (heard.type !== "context") return;
      if (heard.change.kind === "measured" || heard.change.kind === "window") size = heard.change.size;
      if (heard.change.kind !== "measured") note(describeChange(heard.change));
    },
    /** After each answer: how full the context is. */
    afterRun(): void {
      if (size) note(describeSize(size));
    },
  };
}

/** `/compact [instructions]`: summarise the whole conversation now, whatever its size, the latest request kept word for word. */
export function compactCommand(window: ContextWindow): ReplCommand {
  return {
    name: "compact",
    help: "/compact [instructions]  summarise the conversation now; instructions say what to keep",
    async run(instructions, history, signal) {
      const unfit = await window.compact(history, "by_hand", signal, instructions || undefined);
      if (unfit === "aborted") throw new Error("not compacted (interrupted)");
    },
  };
}

/** One line for what happened to the context. */
function describeChange(change: Exclude<ContextEvent["change"], { kind: "measured" }>): string {
  const n = (value: number) => value.toLocaleString("en-US");
  const tokens = (e: { before: number; after: number }) => `${n(e.before)} → ${n(e.after)} tokens`;
  const why = {
    threshold: "over the threshold",
    too_long: "the API refused the prompt as too long",
    by_hand: "/compact",
  };
  switch (change.kind) {
    case "cleared":
      return `context: cleared ${change.results} old tool result${change.results === 1 ? "" : "s"} (${tokens(change)})`;
    case "compacted":
      return `context: ${why[change.why]}: summarised ${change.summarised} messages, kept ${change.kept} (${tokens(change)})`;
    case "compaction_failed":
      return change.why === "by_hand"
        ? `context: not compacted: ${change.reason}`
        : `context: compaction failed (${change.failures} in a row): ${change.reason}`;
    case "window":
      return change.named
        ? `context: the API's window is ${n(change.size.window)} tokens, not ${n(change.was)}: kept inside it from now on`
        : `context: the API refused ${n(change.size.window)} tokens as too long: the window is taken as that, not ${n(change.was)}`;
    case "server_compacted":
      return "context: the server summarised the conversation (its compaction block goes back as it came)";
  }
}

/** How full the context is, in one line. */
export function describeSize(size: ContextSize): string {
  const n = (value: number) => value.toLocaleString("en-US");
  const share = Math.round((100 * size.tokens) / size.usable);
  return `context: ${n(size.tokens)} of ${n(size.usable)} tokens (${share}%; window ${n(size.window)}, the rest kept for the answer)`;
}
