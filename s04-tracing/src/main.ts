/**
 * s04's command line: s03's, plus `--trace[=ID]`. With it, every iteration of every prompt is
 * appended to <id>.jsonl in the trace directory of the project in --cwd (`traceDir`: outside the
 * project, where the model's tools never look), and the end of each run says how to read it
 * with `pnpm trace`.
 */
import { relative } from "node:path";
import { type ChapterCli, type CliIo, isProgram, processIo, type RunContext, runChapterCli } from "@harness/cli";
import { type AgentStopReason, terminalObserver } from "@harness/s03-streaming";
import { demoBrain, ScriptedModel } from "@harness/scripted-model";
import { agentLoop } from "./agent-loop.ts";
import { isValidTraceId } from "./trace-record.ts";
import { newTraceId, TraceWriter, traceDir } from "./trace-writer.ts";

/** The chapter's CLI for one process: `--trace` opens one writer, which every prompt after appends to. */
export function tracingCli(): ChapterCli<AgentStopReason> {
  let trace: TraceWriter | undefined;

  /** The trace's id and file, and the commands that read it. */
  const sayWhereTheTraceIs = ({ view, options }: RunContext): void => {
    if (!trace) return;
    const here = process.env.INIT_CWD ?? process.cwd();
    // the tracer reads the traces of the directory it is started from; name the project when it is another
    const near = relative(here, options.cwd) || ".";
    const custom =
      traceDir(options.cwd) === traceDir(here) ? "" : ` --cwd ${near.startsWith("..") ? options.cwd : near}`;
    view.note(
      `trace ${trace.traceId} → ${trace.path}\n  pnpm trace show ${trace.traceId}${custom}   ·   pnpm trace view ${trace.traceId}${custom}`,
    );
  };

  return {
    command: "s04",
    summary: "every iteration saved to disk, and a tracer to show it",
    scriptedModel: () => new ScriptedModel({ brain: demoBrain }),
    interruptible: true,
    exitCodes: { aborted: 130 },
    // `--trace` alone takes a fresh id; `--trace=ID` names one (`--trace ID` is refused: ID could be the prompt)
    extraOptions: [
      {
        name: "trace",
        type: "string",
        optionalValue: true,
        help: "--trace[=ID]        record every iteration (read it with pnpm trace)",
      },
    ],
    run(history, context) {
      const { client, model, options, signal, view } = context;
      const id = options.extra.trace; // true: `--trace` alone
      if (id !== undefined && !trace) {
        trace = new TraceWriter(id === true ? newTraceId() : String(id), traceDir(options.cwd));
      }
      const running = agentLoop(client, history, {
        model,
        cwd: options.cwd,
        maxTurns: options.maxTurns,
        bashTimeoutMs: options.bashTimeoutSeconds * 1000,
        signal,
        trace,
        observer: terminalObserver(view),
      });
      // a run that fails is the one you will want to read: say where it is before the error line
      return running.catch((error) => {
        sayWhereTheTraceIs(context);
        throw error;
      });
    },
    afterRun: (_result, context) => sayWhereTheTraceIs(context),
  };
}

/** Run the CLI on `argv`. A bad trace id is bad usage: one line on stderr and exit status 1, before any prompt runs. */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  const badId = argv.find((arg) => arg.startsWith("--trace=") && !isValidTraceId(arg.slice("--trace=".length)));
  if (badId) {
    io.stderr.write(`s04: error: invalid trace id "${badId.slice(8)}": use letters, digits, . _ -\n`);
    return 1;
  }
  return runChapterCli(tracingCli(), argv, io);
}

if (isProgram(import.meta.filename)) process.exit(await main(process.argv.slice(2)));
