/**
 * s03's command line: `pnpm s03 [options] [prompt]`, s02's with a streamed turn and Ctrl-C: the
 * first press stops the work in flight and returns to the prompt, a second exits with 130.
 */
import { type ChapterCli, type CliIo, isProgram, processIo, runChapterCli } from "@harness/cli";
import { demoBrain, ScriptedModel } from "@harness/scripted-model";
import { ABORTABLE_EXIT_CODES, type AbortableStopReason } from "./abortable-stop-reason.ts";
import { agentLoop } from "./agent-loop.ts";
import { sendStreamed } from "./stream-turn.ts";

/** The chapter's CLI: s03's streamed loop on the CLI contract, interruptible. */
export const chapter: ChapterCli<AbortableStopReason> = {
  command: "s03",
  summary: "a streamed response, and Ctrl-C that keeps the history valid",
  interruptible: true,
  exitCodes: ABORTABLE_EXIT_CODES,
  start({ options, view, connect }) {
    // the model: the API with a key, else the scripted model, offline; each turn streamed
    const { client, model } = connect(() => new ScriptedModel({ brain: demoBrain }));
    const send = sendStreamed(client);
    const { cwd, maxTurns } = options;
    const bashTimeoutMs = options.bashTimeoutSeconds * 1000;
    // each prompt: the loop, its events (the text as it streams) drawn by the terminal view
    return {
      run: (history, signal) =>
        agentLoop(send, history, { model, cwd, maxTurns, bashTimeoutMs, emit: view.show, signal }),
    };
  },
};

/** Run the CLI on `argv` and return its exit status. */
export const main = (argv: string[], io: CliIo = processIo()): Promise<number> => runChapterCli(chapter, argv, io);

if (isProgram(import.meta.filename)) process.exit(await main(process.argv.slice(2)));
