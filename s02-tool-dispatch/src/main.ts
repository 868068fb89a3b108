/**
 * s02's command line: `pnpm s02 [options] [prompt]`. The shared CLI contract, with s02's loop and
 * a display that labels results of calls that ran at once. Ctrl-C exits at once, as in s01.
 */
import { type ChapterCli, isProgram, runChapterCli } from "@harness/cli";
import { demoBrain, ScriptedModel } from "@harness/scripted-model";
import type { LoopStopReason } from "@harness/shared";
import { agentLoop } from "./agent-loop.ts";
import { terminalObserver } from "./terminal-observer.ts";

/** The chapter's CLI: s02's loop and display on the shared CLI contract. */
export const chapter: ChapterCli<LoopStopReason> = {
  command: "s02",
  summary: "tool objects, a dispatch map and read-only calls run at once",
  scriptedModel: () => new ScriptedModel({ brain: demoBrain }),
  run: (history, { client, model, options, view }) =>
    agentLoop(client, history, {
      model,
      cwd: options.cwd,
      maxTurns: options.maxTurns,
      bashTimeoutMs: options.bashTimeoutSeconds * 1000,
      observer: terminalObserver(view),
    }),
};

if (isProgram(import.meta.filename)) process.exit(await runChapterCli(chapter, process.argv.slice(2)));
