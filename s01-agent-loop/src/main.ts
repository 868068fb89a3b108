/**
 * s01's command line: `pnpm s01 [options] [prompt]`, read top to bottom: where the model calls go,
 * who listens to the loop, and how one prompt runs. The rest (options, REPL, exit codes) is the
 * CLI contract every chapter shares (@harness/cli). Read `agent-loop.ts` first.
 */
import { type ChapterCli, type CliIo, isProgram, processIo, runChapterCli } from "@harness/cli";
import { demoBrain, ScriptedModel } from "@harness/scripted-model";
import type { LoopStopReason } from "@harness/shared";
import { agentLoop } from "./agent-loop.ts";

/** The chapter's CLI: s01's loop on the CLI contract. */
export const chapter: ChapterCli<LoopStopReason> = {
  command: "s01",
  summary: "one bounded loop and a bash tool",
  start({ options, view, connect }) {
    // the model: the API with a key, else the scripted model, offline
    const { client, model } = connect(() => new ScriptedModel({ brain: demoBrain }));
    const { cwd, maxTurns } = options;
    const bashTimeoutMs = options.bashTimeoutSeconds * 1000;
    // each prompt: the loop, its events drawn by the terminal view
    return { run: (history) => agentLoop(client, history, { model, cwd, maxTurns, bashTimeoutMs, emit: view.show }) };
  },
};

/** Run the CLI on `argv` and return its exit status. */
export const main = (argv: string[], io: CliIo = processIo()): Promise<number> => runChapterCli(chapter, argv, io);

if (isProgram(import.meta.filename)) process.exit(await main(process.argv.slice(2)));
