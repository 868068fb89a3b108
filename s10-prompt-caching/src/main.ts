/**
 * s10's command line: s09's, plus `--prompt-cache` and `--cache-ttl`. Each request of the Messages
 * format is marked for the prompt cache on its way from s08's window to s09's adapter (`cached`),
 * so the window still works on the history itself; the OpenAI formats send the session's id as
 * their `prompt_cache_key`. The cache meter listens to the loop's turns, and after each answer a
 * line says what was read from the cache and what the session has cost.
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
import { connectProvider, PROVIDER_ENVIRONMENT, PROVIDER_FLAGS } from "@harness/s09-providers";
import { demoBrain, ScriptedModel } from "@harness/scripted-model";
import type { Emit } from "@harness/shared";
import { agentLoop } from "./agent-loop.ts";
import { CacheMeter } from "./cache-meter.ts";
import { cached } from "./cached.ts";
import { CACHE_FLAGS, cacheLines, readCacheSettings } from "./flags.ts";

/** The chapter's CLI: s09's, each request marked for the prompt cache. */
export const chapter: ChapterCli<CompactionStopReason> = {
  command: "s10",
  summary: "the history resent every turn, paid for once (--prompt-cache)",
  flags: [...CACHE_FLAGS, ...PROVIDER_FLAGS, ...TRACE_FLAGS, ...PERMISSION_FLAGS, ...SESSION_FLAGS, ...WINDOW_FLAGS],
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
    const cache = readCacheSettings(options);
    // the model: the adapter of the wire format chosen, the scripted model speaking it without a key;
    // an OpenAI format keys its own cache by the session (known once the session is open)
    const scripted = () => new ScriptedModel({ brain: demoBrain, contextWindow });
    let sessionId: string | undefined;
    const promptCacheKey = () => (cache.on ? sessionId : undefined);
    const provider = connectProvider(cli, options, { compaction, scripted, promptCacheKey });
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
    sessionId = session.writer.sessionId;
    const resumed = session.history.length > 0;
    const history = historyFromBoundary(session, say);
    // the listeners: the view, the trace, the transcript (each compaction a boundary), the context's
    // lines, the cache meter
    const context = contextLines((line) => view.note(line));
    const meter = new CacheMeter();
    const cacheLine = cacheLines(meter, (line) => view.note(line), { model, ttl: cache.ttl });
    const emit: Emit<TracedEvent | NoticeEvent | MessageEvent | ContextEvent> = fanOut(
      view.show,
      trace?.recorder.record,
      session.writer.record,
      boundaryWriter(session),
      context.show,
      meter.observe,
    );
    // the window: fits each request, and sends it through the breakpoints (Messages format only) to the adapter
    const tools = toolMap(ALL_TOOLS);
    const marked = cache.on && adapter.format === "anthropic";
    const send = marked ? cached(adapter.streamTurn, { ttl: cache.ttl }) : adapter.streamTurn;
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
        if (result) cacheLine.afterRun(); // what the cache read and wrote, and what the session cost
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
