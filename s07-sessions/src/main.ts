/**
 * s07's command line: s06's, with every run a session. Before the first prompt the session is
 * opened (`openSession`): a new one, or `--continue`, `--resume[=ID]`, `--fork`; its history is
 * the one the first prompt goes on from, and SessionStart is told which (a resumed one with
 * `source: "resume"` and its `transcript_path`). The loop writes each prompt it sends and every
 * message after it; the lock is released at exit. A later chapter's CLI is this one with parts of
 * its own (`SessionsCliParts`: its name, options, loop, and what a resume loads).
 */

import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import {
  type ChapterCli,
  type CliContext,
  type CliIo,
  type ExtraOption,
  isProgram,
  processIo,
  type ReplCommand,
  type RunContext,
  runChapterCli,
} from "@harness/cli";
import { terminalObserver } from "@harness/s03-streaming";
import { newTraceId, TraceWriter, traceDir } from "@harness/s04-tracing";
import {
  askTheUser,
  defaultPermissionSettings,
  type PermissionMode,
  type PermissionSettings,
  readPermissionStart,
  S05_OPTIONS,
  sayWhereTheTraceIs,
} from "@harness/s05-permissions";
import {
  type AgentStopReason,
  killRunningHooks,
  type LoadedHooks,
  loadHooks,
  type StartedHooks,
  sessionStartInput,
  startHooks,
} from "@harness/s06-hooks";
import { demoBrain, ScriptedModel } from "@harness/scripted-model";
import type { AgentLoopResult } from "@harness/shared";
import { addMessage } from "./add-message.ts";
import { type AgentLoopOptions, agentLoop } from "./agent-loop.ts";
import { formatSessionLine } from "./format-sessions.ts";
import { interruptedResults } from "./interrupted-results.ts";
import { type OpenSession, openSession, type SessionChoice } from "./open-session.ts";
import { listSessions, sessionsDir } from "./sessions-dir.ts";

/** s06's options (s05's: `--trace`, the mode and the rules), and the session's. */
export const S07_OPTIONS: ExtraOption[] = [
  ...S05_OPTIONS,
  {
    name: "continue",
    type: "boolean",
    help: "--continue          go on with this project's most recent session",
  },
  {
    name: "resume",
    type: "string",
    optionalValue: true,
    help: "--resume[=ID]       go on with session ID (alone: pick one on the terminal)",
  },
  {
    name: "fork",
    type: "boolean",
    help: "--fork              with --continue or --resume: go on in a copy, the original left as it is",
  },
];

/** How many sessions `--resume` offers to pick from. */
export const SESSIONS_OFFERED = 10;

/** What the session part of the CLI needs besides the options. */
export interface SessionsCliOptions {
  /** True when stdin is a terminal: `--resume` alone may ask there which session, and trust is asked there. */
  terminal: boolean;
  /** Tell the user one line (on stderr). */
  say: (line: string) => void;
  /** Where HARNESS_HOME is read from. */
  env: NodeJS.ProcessEnv;
}

/**
 * What a CLI built on this one may change: its name, options and exit codes, its REPL commands,
 * where its model calls go, the history a resumed session goes on from, the loop a prompt runs
 * (given the options built here), and what it says after each run.
 */
export interface SessionsCliParts<R extends string> {
  /** The chapter's command (`s07`). */
  command: string;
  /** One line on what the chapter adds, for the help. */
  summary: string;
  /** Its options beyond the CLI contract's. */
  extraOptions: ExtraOption[];
  /** The exit statuses of its own stop reasons. */
  exitCodes: ChapterCli<R>["exitCodes"];
  /** Its REPL commands (`/compact`, say). */
  commands?: readonly ReplCommand[];
  /** The model that answers offline (see cli's `ChapterCli.scriptedModel`; default: the demo brain's). */
  scriptedModel?: ChapterCli<R>["scriptedModel"];
  /** Where the model calls go, in place of `createClient` (see shared's `ChapterCli.connect`). */
  connect?: ChapterCli<R>["connect"];
  /** Lines the help adds on the environment. */
  environment?: readonly string[];
  /** The history a session with messages goes on from (default: all of it). */
  resumeFrom?(open: OpenSession): MessageParam[];
  /** Run the loop on `history` for one prompt, with the options this CLI built. */
  loop(history: MessageParam[], options: AgentLoopOptions, context: RunContext): Promise<AgentLoopResult<R>>;
  /** After each run, before the session's and the trace's lines. */
  afterRun?(context: RunContext): void;
}

/** This chapter's parts: `s07`, its options and exit codes, its loop on the context's client. */
export const S07_PARTS: SessionsCliParts<AgentStopReason> = {
  command: "s07",
  summary: "every conversation written down as it happens, and resumed",
  exitCodes: { aborted: 130, prompt_blocked: 4 },
  extraOptions: S07_OPTIONS,
  loop: (history, options, { client }) => agentLoop(client, history, options),
};

/** The chapter's CLI: s06's, its runs kept in a session. */
export function sessionsCli<R extends string = AgentStopReason>(
  settings: PermissionSettings,
  mode: PermissionMode,
  loaded: LoadedHooks,
  options: SessionsCliOptions,
  // without parts of its own, R is s06's stop reasons (this chapter's)
  parts: SessionsCliParts<R> = S07_PARTS as unknown as SessionsCliParts<R>,
): ChapterCli<R> & {
  /** The session open now: `undefined` until `loadHistory` has run. */
  session(): OpenSession | undefined;
} {
  let session: OpenSession | undefined;
  let resumed = false;
  let announced = false;
  let trace: TraceWriter | undefined;
  let started: Promise<StartedHooks> | undefined;
  // after each run: where the session is written (once its file exists), and where the trace is
  const afterEachRun = (context: RunContext) => {
    if (!announced && session && session.writer.lastId !== null) {
      options.say(`session ${session.writer.sessionId} → ${session.writer.path}`);
      announced = true;
    }
    sayWhereTheTraceIs(trace, context);
  };
  return {
    command: parts.command,
    summary: parts.summary,
    interruptible: true,
    exitCodes: parts.exitCodes,
    extraOptions: parts.extraOptions,
    commands: parts.commands,
    scriptedModel: parts.scriptedModel ?? (() => new ScriptedModel({ brain: demoBrain })),
    connect: parts.connect,
    environment: parts.environment,
    session: () => session,
    async loadHistory(context) {
      const choice = await chooseSession(context, options);
      session = openSession(choice, { cwd: context.options.cwd, model: context.model, env: options.env });
      for (const note of session.notes) options.say(note);
      resumed = choice.kind !== "new";
      announced = resumed; // its notes said which session it is
      if (session.writer.lastId === null || !parts.resumeFrom) return session.history;
      return parts.resumeFrom(session);
    },
    async run(history, context) {
      const { model, options: cli, signal, view } = context;
      const open = session as OpenSession; // loadHistory ran first
      const hookSession = { sessionId: open.writer.sessionId, cwd: cli.cwd };
      const start = sessionStartInput(hookSession, resumed ? open.writer.path : undefined);
      started ??= startHooks(loaded, start, context, options.terminal);
      const hooks = await started;
      const id = cli.extra.trace; // true: `--trace` alone
      if (id !== undefined && !trace) {
        trace = new TraceWriter(id === true ? newTraceId() : String(id), traceDir(cli.cwd, options.env));
      }
      const running = parts.loop(
        history,
        {
          model,
          cwd: cli.cwd,
          maxTurns: cli.maxTurns,
          bashTimeoutMs: cli.bashTimeoutSeconds * 1000,
          signal,
          trace,
          observer: { ...terminalObserver(view), hookNotice: (line: string) => view.note(`hook: ${line}`) },
          permissions: settings, // the same object for every prompt: "always" holds for the session
          permissionMode: mode,
          ask: (request) => askTheUser(request, context),
          hooks: loaded.hooks,
          runProjectHooks: hooks.runProjectHooks,
          session: hookSession,
          promptContext: hooks.context,
          transcript: open.writer,
        },
        context,
      );
      return running.then(
        (result) => {
          if (result.stopReason !== "prompt_blocked") hooks.context = []; // read by the model with this prompt
          return result;
        },
        (error) => {
          // a transcript that could not be written stops the run: answer what it left unanswered
          const repair = interruptedResults(history);
          if (repair) addMessage(history, repair);
          afterEachRun(context);
          throw error;
        },
      );
    },
    afterRun: (_result, context) => {
      parts.afterRun?.(context);
      afterEachRun(context);
    },
  };
}

/** The session the options name; `--resume` alone asks on the terminal which one. */
export async function chooseSession(context: CliContext, options: SessionsCliOptions): Promise<SessionChoice> {
  const { extra, cwd } = context.options;
  const fork = extra.fork === true;
  if (extra.continue === true) return { kind: "continue", fork };
  if (typeof extra.resume === "string") return { kind: "resume", id: extra.resume, fork };
  if (extra.resume !== true) return { kind: "new" };
  const offered = listSessions(sessionsDir(cwd, options.env)).slice(0, SESSIONS_OFFERED);
  if (offered.length === 0) throw new Error("no session to resume in this project; start one without --resume");
  if (!options.terminal) {
    const ids = offered.map((s) => s.id).join(", ");
    throw new Error(`--resume needs an id when there is no terminal to pick on: --resume=ID (the latest: ${ids})`);
  }
  options.say(`the sessions of this project, the most recent first:`);
  offered.forEach((file, i) => {
    options.say(`  ${i + 1}. ${formatSessionLine(file)}`);
  });
  for (const [i, file] of offered.entries()) {
    if ((await context.ask(`resume ${i + 1} (${file.id.slice(0, 8)})?`)) === "yes")
      return { kind: "resume", id: file.id, fork };
  }
  throw new Error("no session was picked");
}

/**
 * Run the CLI on `argv`. The rules, the mode and the session options are checked first, as s06
 * checks its own: a bad one is one line on stderr and exit status 1, before any model call. The
 * session's lock is released when the CLI returns, or as the process exits on Ctrl-C.
 */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  const fail = (message: string) => {
    io.stderr.write(`s07: error: ${message}\n`);
    return 1;
  };
  const options = {
    terminal: io.stdin.isTTY === true,
    say: (line: string) => io.stderr.write(`s07: ${line}\n`),
    env: io.env,
  };
  const start = readPermissionStart(argv, io, S07_OPTIONS);
  if (start.kind === "error") return fail(start.message);
  // bad usage or --help: the shared CLI says what is wrong, or prints the help
  if (start.kind === "usage") {
    const none: LoadedHooks = { hooks: [], problems: [], projectDefinitions: [] };
    return runChapterCli(sessionsCli(defaultPermissionSettings(), "default", none, options), argv, io);
  }
  const { extra, cwd } = start.options;
  if (extra.continue === true && extra.resume !== undefined) return fail("--continue and --resume: give one of them");
  if (extra.fork === true && extra.continue !== true && extra.resume === undefined) {
    return fail("--fork goes with --continue or --resume: it copies the session they open");
  }
  const loaded = loadHooks(cwd);
  for (const problem of loaded.problems) io.stderr.write(`s07: hooks: ${problem}\n`);
  const cli = sessionsCli(start.settings, start.mode, loaded, options);
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
