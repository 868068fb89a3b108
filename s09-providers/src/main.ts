/**
 * s09's command line: s08's, plus `--provider`, the wire format the model calls speak. The adapter
 * is chosen once at start and put behind the loop's `send` seam (wrapped by s08's window, as s03's
 * streamed turn was); everything else is s08's. A session continues on another provider.
 */
import { type ChapterCli, type CliIo, describeError, isProgram, processIo, runChapterCli } from "@harness/cli";
import { ALL_TOOLS, toApiTool, toolMap } from "@harness/s02-tool-dispatch";
import { openTrace, secretsOf, TRACE_FLAGS, type TracedEvent, whereTheTraceIs } from "@harness/s04-tracing";
import { askTheUser, PERMISSION_FLAGS, permissionGate, readPermissions } from "@harness/s05-permissions";
import { hookGate, killRunningHooks, loopHooks, type NoticeEvent, startHooks } from "@harness/s06-hooks";
import {
  addMessage,
  interruptedResults,
  type MessageEvent,
  openSessionFor,
  SESSION_FLAGS,
} from "@harness/s07-sessions";
import {
  boundaryWriter,
  COMPACTION_EXIT_CODES,
  type CompactionStopReason,
  type ContextEvent,
  ContextWindow,
  compactCommand,
  contextLines,
  historyFromBoundary,
  readWindowSettings,
  WINDOW_FLAGS,
} from "@harness/s08-compaction";
import { demoBrain, ScriptedModel } from "@harness/scripted-model";
import { type Emit, fanOut } from "@harness/shared";
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
    const { settings, mode } = readPermissions(options);
    const { contextWindow, compaction } = readWindowSettings(options);
    // the model: the adapter of the wire format chosen, the scripted model speaking it without a key
    const scripted = () => new ScriptedModel({ brain: demoBrain, contextWindow });
    const provider = connectProvider(cli, options, { compaction, scripted });
    const { model } = provider;
    // the session, from its last compaction on when it is resumed
    const session = await openSessionFor(options, {
      model,
      secrets: secretsOf(io.env),
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
    // the window: fits each request, and the adapter's calls go through it, its "too long" read by the adapter
    const tools = toolMap(ALL_TOOLS);
    const window = new ContextWindow({
      send: provider.adapter.streamTurn,
      tooLong: provider.adapter.promptTooLong,
      model,
      mode: compaction,
      contextWindow,
      tools: [...tools.values()].map(toApiTool),
      emit,
      describeError,
    });
    const listen = fanOut(emit, window.observe);
    const notice = (text: string) => emit({ type: "notice", from: "hook", text });
    const started = await startHooks({
      session: { sessionId: session.writer.sessionId, cwd },
      transcriptPath: resumed ? session.writer.path : undefined,
      ask: terminal ? ask : undefined,
      notice: (line) => say(`hooks: ${line}`),
    });
    const askAbout = (request: Parameters<typeof askTheUser>[0]) => askTheUser(request, ask, cwd, (l) => view.note(l));
    const gate = permissionGate({ settings, mode, ask: askAbout });
    const runCall = hookGate({ ...started, settings, mode, gate, ask: askAbout, notice });
    const hooks = loopHooks({ ...started, notice });
    const bashTimeoutMs = options.bashTimeoutSeconds * 1000;
    let announced = resumed;
    return {
      history,
      run: (history, signal) =>
        agentLoop(window.send, history, {
          model,
          cwd,
          tools,
          maxTurns,
          bashTimeoutMs,
          emit: listen,
          signal,
          runCall,
          hooks,
          window,
        }).catch(async (error: unknown) => {
          throw await provider.describe(error);
        }),
      afterRun(history, result) {
        const repair = result ? undefined : interruptedResults(history);
        if (repair) addMessage(history, repair);
        context.afterRun();
        if (!announced && session.writer.lastId !== null) {
          say(`session ${session.writer.sessionId} → ${session.writer.path}`);
          announced = true;
        }
        if (!trace) return;
        if (!result) trace.recorder.endRun(); // it threw: its error record was its last
        view.note(whereTheTraceIs(trace, cwd, io.env));
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
