/**
 * s01's command line: `pnpm s01 [options] [prompt]`. Everything but the run itself is the
 * shared CLI contract (options, client choice, REPL, exit codes); read `agent-loop.ts` first.
 */
import { type ChapterCli, isProgram, runChapterCli } from "@harness/cli";
import { demoBrain, ScriptedModel } from "@harness/scripted-model";
import type { LoopStopReason } from "@harness/shared";
import { agentLoop } from "./agent-loop.ts";

/** The chapter's CLI: s01's loop on the shared CLI contract. */
export const chapter: ChapterCli<LoopStopReason> = {
  command: "s01",
  summary: "one bounded loop and a bash tool",
  scriptedModel: () => new ScriptedModel({ brain: demoBrain }),
  run: (history, { client, model, options, view }) =>
    agentLoop(client, history, {
      model,
      cwd: options.cwd,
      maxTurns: options.maxTurns,
      bashTimeoutMs: options.bashTimeoutSeconds * 1000,
      observer: {
        modelCall: (n) => view.modelCall(n),
        turn: (turn) => view.text(turn.text),
        toolCall: (call) => view.toolCall(call),
        toolResult: (_call, result) => view.toolResult(result),
      },
    }),
};

if (isProgram(import.meta.filename)) process.exit(await runChapterCli(chapter, process.argv.slice(2)));
