/**
 * s05's command line: s04's (`--trace` included), plus the rules and the mode in front of every
 * tool call. A rule or file that is wrong stops the start with one line naming the file, the line
 * and the rule. A call that asks is put to the user: yes, no, or always. With no terminal to ask
 * on, the answer is no.
 */
import { type ChapterCli, type CliIo, isProgram, processIo, runChapterCli } from "@harness/cli";
import { ABORTABLE_EXIT_CODES, type AbortableStopReason, sendStreamed } from "@harness/s03-streaming";
import { fanOut, openTrace, TRACE_FLAGS, traceAfterRun } from "@harness/s04-tracing";
import { demoBrain, ScriptedModel } from "@harness/scripted-model";
import { agentLoop } from "./agent-loop.ts";
import { askPermissionWith, PERMISSION_FLAGS, readPermissions, trustedPermissions } from "./flags.ts";
import { permissionGate } from "./permission-gate.ts";

/** The chapter's CLI: s04's, each tool call through the permission gate. */
export const chapter: ChapterCli<AbortableStopReason> = {
  command: "s05",
  summary: "allow, ask or deny in front of every tool call",
  flags: [...TRACE_FLAGS, ...PERMISSION_FLAGS],
  interruptible: true,
  exitCodes: ABORTABLE_EXIT_CODES,
  async start({ options, io, view, ask, say, connect }) {
    const { cwd, maxTurns } = options;
    // read before any model call: a bad trace id, rule, settings file or mode stops here
    const trace = openTrace(options, io.env);
    const read = readPermissions(options);
    // what the project ships that lets more run applies once trusted: asked at a terminal, else left out
    const { settings, mode } = await trustedPermissions(read, { ask: io.stdin.isTTY ? ask : undefined, say });
    // the model: the API with a key, else the scripted model, offline; each turn streamed
    const { client, model } = connect(() => new ScriptedModel({ brain: demoBrain }));
    const send = sendStreamed(client);
    // every call through the gate: run, refused with why, or asked about at the terminal
    const runCall = permissionGate({ settings, mode, ask: askPermissionWith(ask, cwd, (line) => view.note(line)) });
    const emit = fanOut(view.show, trace?.recorder.record);
    const bashTimeoutMs = options.bashTimeoutSeconds * 1000;
    const afterTrace = traceAfterRun(trace, (line) => view.note(line), cwd, io.env); // where the trace is
    return {
      run: (history, signal) =>
        agentLoop(send, history, { model, cwd, maxTurns, bashTimeoutMs, emit, signal, runCall }),
      afterRun: (_history, result) => afterTrace(result),
    };
  },
};

/** Run the CLI on `argv` and return its exit status. */
export const main = (argv: string[], io: CliIo = processIo()): Promise<number> => runChapterCli(chapter, argv, io);

if (isProgram(import.meta.filename)) process.exit(await main(process.argv.slice(2)));
