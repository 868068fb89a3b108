/**
 * s04's command line: s03's, plus `--trace[=ID]`. With it, every iteration of every prompt is
 * appended to one trace, and the end of each run says how to read it with `pnpm trace`.
 */
import { type ChapterCli, type CliIo, isProgram, processIo, runChapterCli } from "@harness/cli";
import { ABORTABLE_EXIT_CODES, type AbortableStopReason, sendStreamed } from "@harness/s03-streaming";
import { demoBrain, ScriptedModel } from "@harness/scripted-model";
import { agentLoop } from "./agent-loop.ts";
import { fanOut } from "./fan-out.ts";
import { openTrace, TRACE_FLAGS, traceAfterRun } from "./flags.ts";

/** The chapter's CLI: s04's loop, its events drawn by the view and, with `--trace`, recorded. */
export const chapter: ChapterCli<AbortableStopReason> = {
  command: "s04",
  summary: "every iteration saved to disk, and a tracer to show it",
  flags: TRACE_FLAGS,
  interruptible: true,
  exitCodes: ABORTABLE_EXIT_CODES,
  start({ options, io, view, connect }) {
    // the trace, when asked for (a bad id stops the start here): one listener more on the loop's events
    const trace = openTrace(options, io.env);
    // the model: the API with a key, else the scripted model, offline; each turn streamed
    const { client, model } = connect(() => new ScriptedModel({ brain: demoBrain }));
    const send = sendStreamed(client);
    const emit = fanOut(view.show, trace?.recorder.record);
    const { cwd, maxTurns } = options;
    const bashTimeoutMs = options.bashTimeoutSeconds * 1000;
    const afterTrace = traceAfterRun(trace, (line) => view.note(line), cwd, io.env); // where the trace is
    return {
      run: (history, signal) => agentLoop(send, history, { model, cwd, maxTurns, bashTimeoutMs, emit, signal }),
      afterRun: (_history, result) => afterTrace(result),
    };
  },
};

/** Run the CLI on `argv` and return its exit status. */
export const main = (argv: string[], io: CliIo = processIo()): Promise<number> => runChapterCli(chapter, argv, io);

if (isProgram(import.meta.filename)) process.exit(await main(process.argv.slice(2)));
