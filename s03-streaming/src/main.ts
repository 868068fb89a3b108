/**
 * s03's command line: `pnpm s03 [options] [prompt]`. The shared CLI contract, with a streamed
 * display and Ctrl-C: the first press stops the work in flight and returns to the prompt, a
 * second exits with 130.
 */
import { type ChapterCli, isProgram, runChapterCli } from "@harness/cli";
import { demoBrain, ScriptedModel } from "@harness/scripted-model";
import { agentLoop } from "./agent-loop.ts";
import type { AgentStopReason } from "./agent-stop-reason.ts";
import { terminalObserver } from "./terminal-observer.ts";

/** The chapter's CLI: s03's streamed loop on the shared CLI contract, interruptible. */
export const chapter: ChapterCli<AgentStopReason> = {
  command: "s03",
  summary: "a streamed response, and Ctrl-C that keeps the history valid",
  scriptedModel: () => new ScriptedModel({ brain: demoBrain }),
  interruptible: true,
  exitCodes: { aborted: 130 },
  run: (history, { client, model, options, signal, view }) =>
    agentLoop(client, history, {
      model,
      cwd: options.cwd,
      maxTurns: options.maxTurns,
      bashTimeoutMs: options.bashTimeoutSeconds * 1000,
      signal,
      observer: terminalObserver(view),
    }),
};

if (isProgram(import.meta.filename)) process.exit(await runChapterCli(chapter, process.argv.slice(2)));
