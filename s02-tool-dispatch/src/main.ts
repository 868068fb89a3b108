/**
 * s02's command line: `pnpm s02 [options] [prompt]`. The shared CLI contract, with a streamed
 * display and Ctrl-C: the first press stops the work in flight and returns to the prompt, a
 * second exits with 130.
 */
import { type ChapterCli, runChapterCli } from "@harness/shared";
import { agentLoop, type StopReason } from "./agent-loop.ts";

let callsThisTurn = 0;

const chapter: ChapterCli<StopReason> = {
  command: "s02",
  summary: "a dispatch map, concurrent tools and streamed tool calls",
  interruptible: true,
  run: (history, { client, model, options, signal, view }) =>
    agentLoop(client, history, {
      model,
      cwd: options.cwd,
      maxTurns: options.maxTurns,
      bashTimeoutMs: options.bashTimeoutSeconds * 1000,
      signal,
      observer: {
        modelCall: (n) => view.modelCall(n),
        start: () => view.modelAnswered(),
        text: (delta) => view.textDelta(delta),
        toolStart: (name) => view.toolStart(name),
        toolInput: (partial) => view.toolInput(partial),
        toolCalls: (calls) => {
          callsThisTurn = calls.length;
          for (const call of calls) view.toolCall(call);
        },
        // several calls may finish in any order: label each result with its call
        toolResult: (call, result) => view.toolResult(result, callsThisTurn > 1 ? call : undefined),
      },
    }),
};

process.exit(await runChapterCli(chapter, process.argv.slice(2)));
