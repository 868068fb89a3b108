/**
 * s07's command line: s06's, with every run a session. Before the first prompt the session is
 * opened (new, `--continue`, `--resume[=ID]`, `--fork`); its history is the one the first prompt
 * goes on from, and SessionStart is told which (a resumed one with `source: "resume"`). The
 * transcript is one more listener on the loop's events; the lock is released at exit.
 */
import { type ChapterCli, type CliIo, isProgram, processIo, runChapterCli } from "@harness/cli";
import { sendStreamed } from "@harness/s03-streaming";
import { fanOut, openTrace, secretsOf, TRACE_FLAGS, type TracedEvent, traceAfterRun } from "@harness/s04-tracing";
import { askPermissionWith, PERMISSION_FLAGS, readPermissions } from "@harness/s05-permissions";
import {
  HOOK_EXIT_CODES,
  type HookStopReason,
  hookSeams,
  killRunningHooks,
  type NoticeEvent,
  startHooks,
} from "@harness/s06-hooks";
import { demoBrain, ScriptedModel } from "@harness/scripted-model";
import type { Emit } from "@harness/shared";
import { agentLoop } from "./agent-loop.ts";
import { openSessionFor, SESSION_FLAGS, sessionAfterRun } from "./flags.ts";
import type { MessageEvent } from "./transcript-writer.ts";

/** The chapter's CLI: s06's, its runs kept in a session. */
export const chapter: ChapterCli<HookStopReason> = {
  command: "s07",
  summary: "every conversation written down as it happens, and resumed",
  flags: [...TRACE_FLAGS, ...PERMISSION_FLAGS, ...SESSION_FLAGS],
  interruptible: true,
  exitCodes: HOOK_EXIT_CODES,
  async start({ options, io, view, ask, say, connect }) {
    const { cwd, maxTurns } = options;
    const terminal = io.stdin.isTTY === true;
    // read before any model call: a bad trace id, rule, settings file or mode stops here
    const trace = openTrace(options, io.env);
    const permissions = readPermissions(options);
    // the model: the API with a key, else the scripted model, offline; each turn streamed
    const { client, model } = connect(() => new ScriptedModel({ brain: demoBrain }));
    const send = sendStreamed(client);
    // the session: new, or the one the options name, its history the one the first prompt goes on from
    const secrets = secretsOf(io.env);
    const session = await openSessionFor(options, {
      model,
      secrets,
      env: io.env,
      ask: terminal ? ask : undefined,
      say,
    });
    const resumed = session.history.length > 0;
    // the listeners: the view, the trace, the transcript
    const emit: Emit<TracedEvent | NoticeEvent | MessageEvent> = fanOut(
      view.show,
      trace?.recorder.record,
      session.writer.record,
    );
    const notice = (text: string) => emit({ type: "notice", from: "hook", text });
    // the hooks: loaded, trusted or not, SessionStart told whether the session was resumed
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
      history: session.history,
      run: (history, signal) =>
        agentLoop(send, history, { model, cwd, maxTurns, bashTimeoutMs, emit, signal, runCall, hooks }),
      afterRun(history, result) {
        afterSession(history, result);
        afterTrace(result);
      },
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
