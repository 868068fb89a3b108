/**
 * s09's command line: s08's, plus `--provider`, the wire format the model calls speak. The adapter
 * is chosen once at start and put behind the loop's `send` seam (wrapped by s08's window, as s03's
 * streamed turn was); everything else is s08's. A session continues on another provider.
 */
import { type ChapterCli, type CliIo, describeError, isProgram, processIo, runChapterCli } from "@harness/cli";
import { ALL_TOOLS, toolMap } from "@harness/s02-tool-dispatch";
import { fanOut, openTrace, secretsOf, TRACE_FLAGS, type TracedEvent, traceAfterRun } from "@harness/s04-tracing";
import { askPermissionWith, PERMISSION_FLAGS, readPermissions } from "@harness/s05-permissions";
import { hookSeams, killRunningHooks, type NoticeEvent, startHooks } from "@harness/s06-hooks";
import { type MessageEvent, openSessionFor, SESSION_FLAGS, sessionAfterRun } from "@harness/s07-sessions";
import {
  boundaryWriter,
  COMPACTION_EXIT_CODES,
  type CompactionStopReason,
  type ContextEvent,
  compactCommand,
  contextLines,
  historyFromBoundary,
  openWindow,
  readWindowSettings,
  WINDOW_FLAGS,
} from "@harness/s08-compaction";
import { demoBrain, ScriptedModel } from "@harness/scripted-model";
import type { Emit } from "@harness/shared";
import { agentLoop } from "./agent-loop.ts";
import { connectProvider, PROVIDER_ENVIRONMENT, PROVIDER_FLAGS } from "./flags.ts";

/** The chapter's CLI: s08's, on the wire format `--provider` chooses. */
export const chapter: ChapterCli<CompactionStopReason> = {
  command: "s09",
  summary: "one loop, many wire formats (--provider)",
  flags: [...PROVIDER_FLAGS, ...TRACE_FLAGS, ...PERMISSION_FLAGS, ...SESSION_FLAGS, ...WINDOW_FLAGS],
  environment: PROVIDER_ENVIRONMENT,
  interruptible: true,
  exitCodes: COMPACTION_EXIT_CODES,
  commandHelp: ["/compact [instructions]  summarise the conversation now; instructions say what to keep"],
  async start(cli) {
    const { options, io, view, ask, say } = cli;
    const { cwd, maxTurns } = options;
    const terminal = io.stdin.isTTY === true;
    // read before any model call: a bad trace id, rule, settings file, mode or window stops here
    const trace = openTrace(options, io.env);
    const permissions = readPermissions(options);
    const windowSettings = readWindowSettings(options);
    const { contextWindow, compaction } = windowSettings;
    // the model: the adapter of the wire format chosen, the scripted model speaking it without a key
    const scripted = () => new ScriptedModel({ brain: demoBrain, contextWindow });
    const provider = connectProvider(cli, options, { compaction, scripted });
    const { adapter, model } = provider;
    // the session, from its last compaction on when it is resumed
    const secrets = secretsOf(io.env);
    const session = await openSessionFor(options, {
      model,
      secrets,
      env: io.env,
      ask: terminal ? ask : undefined,
      say,
    });
    const resumed = session.history.length > 0;
    const history = historyFromBoundary(session, say);
    // the listeners: the view, the trace, the transcript (each compaction a boundary), the context's lines
    const context = contextLines((line) => view.note(line));
    const emit: Emit<TracedEvent | NoticeEvent | MessageEvent | ContextEvent> = fanOut(
      view.show,
      trace?.recorder.record,
      session.writer.record,
      boundaryWriter(session),
      context.show,
    );
    // the window: fits each request, the adapter's calls go through it, its "too long" read by the adapter
    const tools = toolMap(ALL_TOOLS);
    const send = adapter.streamTurn;
    const window = openWindow(windowSettings, {
      send,
      tooLong: adapter.promptTooLong,
      model,
      tools,
      emit,
      describeError,
    });
    const listen = fanOut(emit, window.observe);
    // the hooks: loaded, trusted or not, SessionStart told whether the session was resumed
    const notice = (text: string) => emit({ type: "notice", from: "hook", text });
    const started = await startHooks({
      session: { sessionId: session.writer.sessionId, cwd },
      transcriptPath: resumed ? session.writer.path : undefined,
      permissions,
      ask: terminal ? ask : undefined,
      say,
    });
    const askPermission = askPermissionWith(ask, cwd, (line) => view.note(line));
    const { runCall, hooks } = hookSeams(started, { ask: askPermission, notice });
    const bashTimeoutMs = options.bashTimeoutSeconds * 1000;
    const afterSession = sessionAfterRun(session, say); // repaired if it threw; where it is written
    const afterTrace = traceAfterRun(trace, (line) => view.note(line), cwd, io.env); // where the trace is
    return {
      history,
      run: (history, signal) =>
        agentLoop(window.send, history, {
          model,
          cwd,
          tools,
          maxTurns,
          bashTimeoutMs,
          signal,
          runCall,
          hooks,
          window,
          emit: listen,
        }).catch(async (error: unknown) => {
          throw await provider.describe(error); // an OpenAI format's error names its endpoint
        }),
      afterRun(history, result) {
        if (result) context.afterRun(); // how full the context is, as the last answer measured it
        afterSession(history, result);
        afterTrace(result);
      },
      commands: [compactCommand(window)],
      close() {
        session.close();
        killRunningHooks();
      },
    };
  },
};

/** Run the CLI on `argv` and return its exit status. */
export const main = (argv: string[], io: CliIo = processIo()): Promise<number> => runChapterCli(chapter, argv, io);

if (isProgram(import.meta.filename)) {
  process.on("exit", killRunningHooks); // a second Ctrl-C exits at once: no hook is left running
  process.exit(await main(process.argv.slice(2)));
}
