/**
 * s08's command line: s07's, plus the context window. `--context-window N` sets the window (and,
 * offline, the scripted model's: it refuses a longer request as the API does); `--compaction`
 * chooses who keeps the history inside it. After each answer a line says how full the context is;
 * `/compact [instructions]` in the REPL summarises the conversation by hand. Every compaction is
 * written to the session's transcript as a boundary, and a resumed session (`--continue`,
 * `--resume`, `--fork`) loads the history from its last boundary on: the summary and the tail.
 */
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import {
  type ChapterCli,
  type CliIo,
  type CliOptions,
  type ExtraOption,
  isProgram,
  processIo,
  type ReplCommand,
  type RunContext,
  runChapterCli,
  type TerminalView,
} from "@harness/cli";
import { ALL_TOOLS, toApiTool } from "@harness/s02-tool-dispatch";
import {
  defaultPermissionSettings,
  type PermissionMode,
  type PermissionSettings,
  readPermissionStart,
} from "@harness/s05-permissions";
import { killRunningHooks, type LoadedHooks, loadHooks } from "@harness/s06-hooks";
import {
  type OpenSession,
  readTranscript,
  S07_OPTIONS,
  type SessionsCliOptions,
  sessionsCli,
} from "@harness/s07-sessions";
import { demoBrain, ScriptedModel } from "@harness/scripted-model";
import type { AgentLoopResult } from "@harness/shared";
import { type AgentLoopOptions, agentLoop } from "./agent-loop.ts";
import type { AgentStopReason } from "./agent-stop-reason.ts";
import { compactHistory } from "./compact-history.ts";
import { contextBudgetFor } from "./context-budget.ts";
import {
  COMPACTION_MODES,
  type CompactionMode,
  type ContextEvent,
  isCompactionMode,
  SUMMARY_MAX_TOKENS,
} from "./context-keeper.ts";
import { type ContextSize, estimateTokens } from "./measure-context.ts";
import { type SendTurn, sendTurnWith } from "./send-turn.ts";
import { historySinceBoundary, writeBoundary } from "./transcript-boundary.ts";

/** s07's options (s05's, then the session's), then the window and who keeps the history in it. */
export const S08_OPTIONS: ExtraOption[] = [
  ...S07_OPTIONS,
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

/** The exit status of `context_overflow`: the history could not be made to fit. */
export const CONTEXT_OVERFLOW_EXIT = 5;

/** What s08 adds to s07's command line, read from its options. */
export interface ContextSettings {
  /** `--context-window`, when given. */
  contextWindow?: number;
  compaction: CompactionMode;
}

/**
 * What a CLI built on this one may change: its name and options, where its model calls go
 * (`connect`), the loop a prompt runs, and how `/compact` sends its summary request.
 */
export interface CompactionCliParts {
  /** The chapter's command (`s08`). */
  command: string;
  /** One line on what the chapter adds, for the help. */
  summary: string;
  /** Its options beyond the CLI contract's. */
  extraOptions: ExtraOption[];
  /** Where the model calls go, in place of `createClient` (see shared's `ChapterCli.connect`). */
  connect?: ChapterCli<AgentStopReason>["connect"];
  /** Run the loop on `history` for one prompt. */
  loop(
    history: MessageParam[],
    options: AgentLoopOptions,
    context: RunContext,
  ): Promise<AgentLoopResult<AgentStopReason>>;
  /** How `/compact` sends its summary request. */
  send(context: RunContext): SendTurn;
  /** Lines the help adds on the environment (the variables `connect` reads). */
  environment?: readonly string[];
}

/** This chapter's parts: `s08`, its options, its loop on the context's Anthropic client. */
export const S08_PARTS: CompactionCliParts = {
  command: "s08",
  summary: "a conversation longer than the context window",
  extraOptions: S08_OPTIONS,
  loop: (history, options, { client }) => agentLoop(client, history, options),
  send: ({ client }) => sendTurnWith(client),
};

/**
 * The chapter's CLI: s07's (its runs kept in a session, the hooks loaded, the rules read and the
 * mode chosen), its history kept inside the window `window` sets: a resumed session goes on from
 * its last compaction, each run is told the window and the compaction mode, the context's line
 * follows each answer, and `/compact` summarises by hand.
 */
export function compactionCli(
  settings: PermissionSettings,
  mode: PermissionMode,
  loaded: LoadedHooks,
  options: SessionsCliOptions,
  window: ContextSettings,
  parts: CompactionCliParts = S08_PARTS,
): ChapterCli<AgentStopReason> & {
  /** The session open now: `undefined` until `loadHistory` has run. */
  session(): OpenSession | undefined;
} {
  let size: ContextSize | undefined;
  let session = (): OpenSession | undefined => undefined; // the CLI's, once made
  const cli = sessionsCli<AgentStopReason>(settings, mode, loaded, options, {
    command: parts.command,
    summary: parts.summary,
    exitCodes: { aborted: 130, prompt_blocked: 4, context_overflow: CONTEXT_OVERFLOW_EXIT },
    extraOptions: parts.extraOptions,
    commands: [compactCommand(window, () => session(), parts.send)],
    scriptedModel: () => new ScriptedModel({ brain: demoBrain, contextWindow: window.contextWindow }),
    connect: parts.connect,
    environment: parts.environment,
    resumeFrom(open) {
      // from the last compaction on: the summary and the tail, not the whole past
      const history = historySinceBoundary(readTranscript(open.writer.path).records);
      if (history.length < open.history.length) {
        options.say(`loaded from the last compaction: ${history.length} of ${open.history.length} messages`);
      }
      return history;
    },
    loop: (history, loopOptions, context) =>
      parts.loop(
        history,
        {
          ...loopOptions,
          observer: {
            ...loopOptions.observer,
            context: (event: ContextEvent) => {
              if (event.kind === "measured") size = event.size;
              else showContextEvent(context.view, event);
            },
          },
          compaction: window.compaction,
          contextWindow: window.contextWindow,
        },
        context,
      ),
    afterRun: (context) => {
      if (size) context.view.note(describeSize(size));
    },
  });
  session = cli.session;
  return cli;
}

/**
 * `/compact [instructions]`: summarise the whole conversation now, whatever its size (the latest
 * request kept word for word), and write it to the session's transcript as a boundary.
 */
function compactCommand(
  window: ContextSettings,
  session: () => OpenSession | undefined,
  send: CompactionCliParts["send"],
): ReplCommand {
  return {
    name: "compact",
    help: "/compact [instructions]  summarise the conversation now; instructions say what to keep",
    async run(instructions, history, context) {
      const { model, view, signal } = context;
      const before = estimateTokens(history);
      const outcome = await compactHistory(send(context), history, {
        model,
        tools: ALL_TOOLS.map(toApiTool),
        maxTokens: Math.min(SUMMARY_MAX_TOKENS, contextBudgetFor(model, window.contextWindow).outputReserve),
        tailTokens: 0,
        instructions: instructions || undefined,
        signal,
      });
      if (outcome.kind === "compacted") {
        const writer = session()?.writer;
        if (writer) writeBoundary(writer, history);
        const { summarised, kept } = outcome;
        showContextEvent(view, {
          kind: "compacted",
          why: "by_hand",
          summarised,
          kept,
          before,
          after: estimateTokens(history),
        });
      } else if (outcome.kind === "failed") view.note(`context: not compacted: ${outcome.reason}`);
      else view.note("context: not compacted (interrupted)");
    },
  };
}
/** One line for what happened to the context. */
function showContextEvent(view: TerminalView, event: Exclude<ContextEvent, { kind: "measured" }>): void {
  const n = (value: number) => value.toLocaleString("en-US");
  // by hand the numbers are the history's alone: the system prompt and tools are the loop's
  const change = (e: { before: number; after: number }, by?: string) =>
    `${by === "by_hand" ? "history " : ""}${n(e.before)} → ${n(e.after)} tokens`;
  const why = {
    threshold: "over the threshold",
    too_long: "the API refused the prompt as too long",
    by_hand: "/compact",
  };
  switch (event.kind) {
    case "cleared":
      view.note(
        `context: cleared ${event.results} old tool result${event.results === 1 ? "" : "s"} (${change(event)})`,
      );
      break;
    case "compacted":
      view.note(
        `context: ${why[event.why]}: summarised ${event.summarised} messages, kept ${event.kept} (${change(event, event.why)})`,
      );
      break;
    case "compaction_failed":
      view.note(`context: compaction failed (${event.failures} in a row): ${event.reason}`);
      break;
    case "server_compacted":
      view.note("context: the server summarised the conversation (its compaction block goes back as it came)");
      break;
  }
}
/** How full the context is, in one line. */
export function describeSize(size: ContextSize): string {
  const n = (value: number) => value.toLocaleString("en-US");
  const share = Math.round((100 * size.tokens) / size.usable);
  return `context: ${n(size.tokens)} of ${n(size.usable)} tokens (${share}%; window ${n(size.window)}, the rest kept for the answer)`;
}
/** `--context-window` and `--compaction`, checked; a bad one is the error line to print. */
export function contextSettings(extra: CliOptions["extra"]): ContextSettings | string {
  const compaction = extra.compaction ?? "client";
  if (!isCompactionMode(compaction)) {
    return `--compaction: "${compaction}" is not a mode; use one of ${COMPACTION_MODES.join(", ")}`;
  }
  const raw = extra["context-window"];
  if (raw === undefined) return { compaction };
  const window = Number(raw);
  if (!Number.isInteger(window) || window < 1) {
    return `--context-window expects a whole number of tokens of at least 1, got ${JSON.stringify(raw)}`;
  }
  return { compaction, contextWindow: window };
}

/**
 * Run the CLI on `argv`. The rules, the mode, the session options, the window and the compaction
 * mode are checked first, as s07 checks its own: a bad one is one line on stderr and exit status 1,
 * before any model call (`parts`: a later chapter's CLI built on this one). The session's lock is released when the CLI returns, or as the process
 * exits on Ctrl-C.
 */
export async function main(argv: string[], io: CliIo = processIo(), parts = S08_PARTS): Promise<number> {
  const fail = (message: string) => {
    io.stderr.write(`${parts.command}: error: ${message}\n`);
    return 1;
  };
  const options = {
    terminal: io.stdin.isTTY === true,
    say: (line: string) => io.stderr.write(`${parts.command}: ${line}\n`),
    env: io.env,
  };
  const start = readPermissionStart(argv, io, parts.extraOptions);
  if (start.kind === "error") return fail(start.message);
  // bad usage or --help: the shared CLI says what is wrong, or prints the help
  if (start.kind === "usage") {
    const none: LoadedHooks = { hooks: [], problems: [], projectDefinitions: [] };
    const cli = compactionCli(defaultPermissionSettings(), "default", none, options, { compaction: "client" }, parts);
    return runChapterCli(cli, argv, io);
  }
  const { extra, cwd } = start.options;
  if (extra.continue === true && extra.resume !== undefined) return fail("--continue and --resume: give one of them");
  if (extra.fork === true && extra.continue !== true && extra.resume === undefined) {
    return fail("--fork goes with --continue or --resume: it copies the session they open");
  }
  const window = contextSettings(extra);
  if (typeof window === "string") return fail(window);
  const loaded = loadHooks(cwd);
  for (const problem of loaded.problems) io.stderr.write(`${parts.command}: hooks: ${problem}\n`);
  const cli = compactionCli(start.settings, start.mode, loaded, options, window, parts);
  const close = () => cli.session()?.close();
  process.on("exit", close); // Ctrl-C ends the process from inside the CLI: the lock goes too
  try {
    return await runChapterCli(cli, argv, io);
  } finally {
    process.off("exit", close);
    close();
  }
}

if (isProgram(import.meta.filename)) {
  process.on("exit", killRunningHooks); // a second Ctrl-C exits at once: no hook is left running
  process.exit(await main(process.argv.slice(2)));
}
