/**
 * The CLI contract every chapter shares: parse the options, choose the client, run one prompt
 * or a REPL, print the result, and map it to an exit status. A chapter's `main.ts` supplies only
 * the part it teaches: how one prompt is run.
 */
import { createInterface } from "node:readline";
import type Anthropic from "@anthropic-ai/sdk";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import type { AgentLoopResult } from "../agent-loop-result.ts";
import { appendUserText } from "../append-user-text.ts";
import { type ClientChoice, createClient } from "../create-client.ts";
import { killRunningCommands } from "../run-bash.ts";
import { describeError } from "./describe-error.ts";
import { type CliOptions, type ExtraOption, parseCliArgs, UsageError, usage } from "./parse-cli-args.ts";
import { TerminalView } from "./terminal-view.ts";

/** Everything a chapter's run gets. */
export interface RunContext {
  client: Anthropic;
  model: string;
  options: CliOptions;
  /** Aborted on Ctrl-C (chapters that can be interrupted listen to it). */
  signal: AbortSignal;
  view: TerminalView;
}

/** A chapter's CLI: its name, its help line, and how it runs one prompt. */
export interface ChapterCli<R extends string> {
  /** `s01`, `s02`, ... */
  command: string;
  /** One line for `--help`. */
  summary: string;
  /** Run the loop on `history`, which already ends with the user's prompt. */
  run(history: MessageParam[], context: RunContext): Promise<AgentLoopResult<R>>;
  /**
   * True when `run` honours `signal`: Ctrl-C then aborts the run and returns to the prompt, and a
   * second Ctrl-C exits. Otherwise Ctrl-C exits at once.
   */
  interruptible?: boolean;
  /** Options beyond the contract. */
  extraOptions?: ExtraOption[];
  /** Called after each run (for example to say where a trace was saved). */
  afterRun?(result: AgentLoopResult<R>, context: RunContext): void;
}

/** The streams and environment a CLI run uses (tests pass their own). */
export interface CliIo {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
}

/** Exit status for each way a run can end. */
export const EXIT_CODES: Record<string, number> = {
  final_answer: 0,
  max_turns: 2,
  repeated_tool_call: 2, // s02 on: like max_turns, a limit of the harness stopped the run
  max_tokens: 3,
  aborted: 130,
};

/** Exit status for a result: the table above, or 1 for a result it does not list. */
export function exitCodeFor(stopReason: string): number {
  return EXIT_CODES[stopReason] ?? 1;
}

/**
 * Run a chapter's CLI to the end and return its exit status.
 * Contract: never throws; an error is one line on stderr (with the stack only when DEBUG is set).
 */
export async function runChapterCli<R extends string>(
  chapter: ChapterCli<R>,
  argv: string[],
  io: CliIo = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env },
): Promise<number> {
  const fail = (error: unknown, choice?: ClientChoice) => {
    io.stderr.write(`${chapter.command}: error: ${describeError(error, choice ?? {})}\n`);
    if (io.env.DEBUG && error instanceof Error && error.stack) io.stderr.write(`${error.stack}\n`);
  };
  let options: CliOptions;
  try {
    options = parseCliArgs(argv, { cwd: io.env.INIT_CWD ?? process.cwd() }, chapter.extraOptions);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    fail(error);
    return 1;
  }
  if (options.help) {
    io.stdout.write(`${usage(chapter.command, chapter.summary, chapter.extraOptions)}\n`);
    return 0;
  }
  const choice = createClient({
    offline: options.offline,
    model: options.model,
    modelTimeoutSeconds: options.modelTimeoutSeconds,
    env: io.env,
  });
  io.stderr.write(`${choice.notice}\n`);
  const view = new TerminalView(io, { estimatedTokens: choice.kind === "scripted" });
  const history: MessageParam[] = [];

  let controller: AbortController | null = null;
  let interrupts = 0;
  const onInterrupt = () => {
    interrupts++;
    if (chapter.interruptible && controller && !controller.signal.aborted && interrupts === 1) {
      view.note("(interrupted; press Ctrl-C again to exit)");
      controller.abort();
      return;
    }
    killRunningCommands();
    view.endLine();
    process.exit(130);
  };
  process.on("SIGINT", onInterrupt);

  const runOnce = async (prompt: string): Promise<number> => {
    appendUserText(history, prompt);
    controller = new AbortController();
    interrupts = 0;
    const context: RunContext = {
      client: choice.client,
      model: choice.model,
      options,
      signal: controller.signal,
      view,
    };
    try {
      const result = await chapter.run(history, context);
      view.summary(result);
      chapter.afterRun?.(result, context);
      if (options.json) io.stdout.write(`${JSON.stringify(result)}\n`);
      return exitCodeFor(result.stopReason);
    } catch (error) {
      view.modelAnswered();
      view.endLine();
      fail(error, choice);
      return 1;
    } finally {
      controller = null;
    }
  };

  try {
    if (options.prompt !== undefined) return await runOnce(options.prompt);
    return await repl(chapter.command, io, runOnce, onInterrupt);
  } finally {
    process.off("SIGINT", onInterrupt);
  }
}

/** Read prompts until q, exit or end of input; each runs on the same history. */
async function repl(
  command: string,
  io: CliIo,
  runOnce: (prompt: string) => Promise<number>,
  onInterrupt: () => void,
): Promise<number> {
  const rl = createInterface({
    input: io.stdin,
    output: io.stdout,
    terminal: io.stdin.isTTY === true,
    prompt: `${command} >> `,
  });
  rl.on("SIGINT", onInterrupt); // on a TTY readline turns Ctrl-C into this event
  rl.prompt();
  for await (const line of rl) {
    const prompt = line.trim();
    if (prompt === "q" || prompt === "exit") break;
    if (prompt !== "") await runOnce(prompt);
    rl.prompt();
  }
  rl.close();
  io.stdout.write("\n");
  return 0;
}
