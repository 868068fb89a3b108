/**
 * s02's command line: `pnpm s02 [options] [prompt]`. The shared CLI contract, with a streamed
 * display and Ctrl-C: the first press stops the work in flight and returns to the prompt, a
 * second exits with 130.
 */
import { type ChapterCli, runChapterCli } from "@harness/shared";
import { agentLoop, type StopReason } from "./agent-loop.ts";
import { terminalObserver } from "./terminal-observer.ts";

const chapter: ChapterCli<StopReason> = {
  command: "s02",
  summary: "a dispatch map, concurrent tools and streamed tool calls",
  interruptible: true,
  exitCodes: { repeated_tool_call: 2, aborted: 130 },
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

process.exit(await runChapterCli(chapter, process.argv.slice(2)));
