/**
 * s06's command line: s05's, plus the user's hooks. The hooks are read once at start (what cannot
 * be loaded is one line each); the project's run only when trusted (asked at the terminal before
 * the first prompt); SessionStart runs then. The loop runs UserPromptSubmit and Stop; PreToolUse
 * and PostToolUse wrap each call around s05's gate.
 */
import { randomUUID } from "node:crypto";
import { type ChapterCli, type CliIo, isProgram, processIo, runChapterCli } from "@harness/cli";
import { sendStreamed } from "@harness/s03-streaming";
import { fanOut, openTrace, TRACE_FLAGS, type TracedEvent, traceAfterRun } from "@harness/s04-tracing";
import { askPermissionWith, PERMISSION_FLAGS, readPermissions } from "@harness/s05-permissions";
import { demoBrain, ScriptedModel } from "@harness/scripted-model";
import type { Emit } from "@harness/shared";
import { agentLoop } from "./agent-loop.ts";
import { HOOK_EXIT_CODES, type HookStopReason } from "./hook-stop-reason.ts";
import type { NoticeEvent } from "./loop-hooks.ts";
import { killRunningHooks } from "./runner/run-hook.ts";
import { hookSeams, startHooks } from "./start-hooks.ts";

/** The chapter's CLI: s05's, with the user's hooks at the loop's fixed points. */
export const chapter: ChapterCli<HookStopReason> = {
  command: "s06",
  summary: "the user's hooks at the loop's fixed points",
  flags: [...TRACE_FLAGS, ...PERMISSION_FLAGS],
  interruptible: true,
  exitCodes: HOOK_EXIT_CODES,
  async start({ options, io, view, ask, say, connect }) {
    const { cwd, maxTurns } = options;
    // read before any model call: a bad trace id, rule, settings file or mode stops here
    const trace = openTrace(options, io.env);
    const permissions = readPermissions(options);
    // the model: the API with a key, else the scripted model, offline; each turn streamed
    const { client, model } = connect(() => new ScriptedModel({ brain: demoBrain }));
    const send = sendStreamed(client);
    // the listeners: the view, the trace; a hook's line for the user is one more event
    const emit: Emit<TracedEvent | NoticeEvent> = fanOut(view.show, trace?.recorder.record);
    const notice = (text: string) => emit({ type: "notice", from: "hook", text });
    // the hooks: loaded; what the project ships (hooks, permissions) trusted or not, asked at a terminal;
    // SessionStart run; then in the loop's seams
    const started = await startHooks({
      session: { sessionId: randomUUID(), cwd },
      permissions,
      ask: io.stdin.isTTY ? ask : undefined,
      say,
    });
    const askPermission = askPermissionWith(ask, cwd, (line) => view.note(line));
    const { runCall, hooks } = hookSeams(started, { ask: askPermission, notice });
    const bashTimeoutMs = options.bashTimeoutSeconds * 1000;
    const afterTrace = traceAfterRun(trace, (line) => view.note(line), cwd, io.env); // where the trace is
    return {
      run: (history, signal) =>
        agentLoop(send, history, { model, cwd, maxTurns, bashTimeoutMs, emit, signal, runCall, hooks }),
      afterRun: (_history, result) => afterTrace(result),
      close: killRunningHooks,
    };
  },
};

/** Run the CLI on `argv` and return its exit status. */
export const main = (argv: string[], io: CliIo = processIo()): Promise<number> => runChapterCli(chapter, argv, io);

if (isProgram(import.meta.filename)) {
  process.on("exit", killRunningHooks); // a second Ctrl-C exits at once: no hook is left running
  process.exit(await main(process.argv.slice(2)));
}
