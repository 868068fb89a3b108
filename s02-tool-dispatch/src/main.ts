/**
 * s02's command line: `pnpm s02 [options] [prompt]`, s01's with s02's loop. Ctrl-C exits at once,
 * as in s01.
 */
import { type ChapterCli, type CliIo, isProgram, processIo, runChapterCli } from "@harness/cli";
import { demoBrain, ScriptedModel } from "@harness/scripted-model";
import type { LoopStopReason } from "@harness/shared";
import { agentLoop } from "./agent-loop.ts";

/** The chapter's CLI: s02's loop on the CLI contract. */
export const chapter: ChapterCli<LoopStopReason> = {
  command: "s02",
  summary: "tool objects, a dispatch map and read-only calls run at once",
  start({ options, view, connect }) {
    // the model: the API with a key, else the scripted model, offline
    const { client, model } = connect(() => new ScriptedModel({ brain: demoBrain }));
    const { cwd, maxTurns } = options;
    const bashTimeoutMs = options.bashTimeoutSeconds * 1000;
    // each prompt: the loop with every tool of s02, its events drawn by the terminal view
    return { run: (history) => agentLoop(client, history, { model, cwd, maxTurns, bashTimeoutMs, emit: view.show }) };
  },
};

/** Run the CLI on `argv` and return its exit status. */
export const main = (argv: string[], io: CliIo = processIo()): Promise<number> => runChapterCli(chapter, argv, io);

if (isProgram(import.meta.filename)) process.exit(await main(process.argv.slice(2)));
