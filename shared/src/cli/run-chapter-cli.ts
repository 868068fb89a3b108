/**
 * The CLI contract every chapter shares: parse the options, choose the client, run one prompt
 * or a REPL, print the result, and map it to an exit status. A chapter's `main.ts` supplies only
 * the part it teaches: how one prompt is run, and, where a chapter needs them, its own options and
 * stop reasons, questions to the user, and where the history is loaded from and saved to.
 */
import { createInterface, type Interface } from "node:readline";
import type Anthropic from "@anthropic-ai/sdk";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import type { AgentLoopResult } from "../agent-loop-result.ts";
import { appendUserText } from "../append-user-text.ts";
import { type ClientChoice, type CreateClientOptions, createClient } from "../create-client.ts";
import { credentialValues, withoutSecrets } from "../credential-values.ts";
import { historyProblems, isValidHistory } from "../history-problems.ts";
import { killRunningCommands } from "../run-bash.ts";
import type { LoopStopReason } from "../stop-reason-for.ts";
import { type AskAnswer, askUser, DEFAULT_CHOICES } from "./ask-user.ts";
import { describeError } from "./describe-error.ts";
import { EXIT_CODES, exitCodeFor } from "./exit-code-for.ts";
import { type CliOptions, type ExtraOption, parseCliArgs, UsageError, usage } from "./parse-cli-args.ts";
import { processIo } from "./process-io.ts";
import { TerminalView } from "./terminal-view.ts";

/** What the CLI gives a chapter's hooks: the client, the options, the view, and the user. */
export interface CliContext {
  client: Anthropic;
  model: string;
  options: CliOptions;
  view: TerminalView;
  /**
   * Ask the user a question and wait for the answer (by default yes or no), on the terminal,
   * through the REPL's own line reader.
   * Contract: never throws; questions asked at once are put one after another; with no terminal
   * the answer is "no", said once per question on stderr; Ctrl-C or the end of input answers "no".
   */
  ask(question: string, choices?: readonly AskAnswer[]): Promise<AskAnswer>;
}

/** Everything a chapter's run gets. */
export interface RunContext extends CliContext {
  /** Aborted on Ctrl-C (chapters that can be interrupted listen to it). */
  signal: AbortSignal;
}

/**
 * A command the REPL reads as `/name [arguments]`: it runs on the history instead of being sent as a
 * prompt. A line whose first word names no command is a prompt, as before.
 */
export interface ReplCommand {
  /** The word after the slash (`compact` for `/compact`). */
  name: string;
  /** Its line in `--help`, e.g. `/compact [instructions]  summarise the conversation now`. */
  help: string;
  /**
   * Run it with the rest of the line (trimmed, maybe empty); it may change `history` in place.
   * Contract: Ctrl-C aborts `context.signal`; a throw is one error line, and the REPL goes on.
   */
  run(args: string, history: MessageParam[], context: RunContext): Promise<void>;
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
  /** Commands the REPL reads as `/name [arguments]`. */
  commands?: readonly ReplCommand[];
  /**
   * More for `createClient`, from the parsed options (the scripted model's context window, for
   * example); the contract's own (offline, model, timeout, environment) always come from the CLI.
   */
  clientOptions?(options: CliOptions): Partial<CreateClientOptions>;
  /**
   * The exit status of each stop reason the chapter adds to s01's (`{ aborted: 130 }`); the
   * contract's own (`EXIT_CODES`) cannot be changed. A result listed nowhere exits 1.
   */
  exitCodes?: { readonly [K in Exclude<R, LoopStopReason>]: number };
  /** Called after each run (for example to say where a trace was saved). */
  afterRun?(result: AgentLoopResult<R>, context: RunContext): void;
  /**
   * The history the first prompt continues (a saved session), read before the first prompt;
   * without this hook, an empty one.
   * Contract: a history the API would refuse is an error (exit 1) before any prompt runs.
   */
  loadHistory?(context: CliContext): MessageParam[] | Promise<MessageParam[]>;
  /**
   * Told the history whenever a prompt may have changed it: after each run, whether it answered
   * or failed, and as the CLI exits on any other path (Ctrl-C in the middle of a run included).
   * Contract: `history` is one the API would accept (cut mid-run, it is the history as it was when
   * the run began, prompt included); a history already told is not told again.
   */
  historyChanged?(history: readonly MessageParam[], context: CliContext): void | Promise<void>;
  /**
   * Where the model calls go, for a chapter that chooses on its own (another wire format): called
   * once at start, in place of `createClient`. Its notice is printed, and its kind, key source and
   * endpoint serve as `createClient`'s would; without a client of its own, `context.client` is the
   * scripted model's, which such a chapter does not call.
   */
  connect?(options: CliOptions, env: NodeJS.ProcessEnv): Connection;
  /** Lines the help adds under the environment it reads (a chapter that reads more variables). */
  environment?: readonly string[];
}

/** What `connect` chose: `createClient`'s choice, the client optional. */
export type Connection = Omit<ClientChoice, "client"> & { client?: ClientChoice["client"] };

/** The streams and environment a CLI run uses (tests pass their own). */
export interface CliIo {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  /** Ends the process at once, on Ctrl-C (default: `process.exit`). */
  exit?: (code: number) => void;
}

/**
 * Run a chapter's CLI to the end and return its exit status.
 * Contract: never throws; an error is one line on stderr (with the stack only when DEBUG is set).
 */
export async function runChapterCli<R extends string>(
  chapter: ChapterCli<R>,
  argv: string[],
  io: CliIo = processIo(),
): Promise<number> {
  const fail = (error: unknown, choice?: Connection) => {
    // a server may echo the key it was sent: the line never carries one
    const line = withoutSecrets(describeError(error, choice ?? {}), credentialValues(io.env));
    io.stderr.write(`${chapter.command}: error: ${line}\n`);
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
    io.stdout.write(
      `${usage(chapter.command, chapter.summary, chapter.extraOptions, chapter.exitCodes, chapter.commands, chapter.environment)}\n`,
    );
    return 0;
  }
  let choice: Connection;
  try {
    choice =
      chapter.connect?.(options, io.env) ??
      createClient({
        ...chapter.clientOptions?.(options),
        offline: options.offline,
        model: options.model,
        modelTimeoutSeconds: options.modelTimeoutSeconds,
        env: io.env,
      });
  } catch (error) {
    fail(error);
    return 1;
  }
  io.stderr.write(`${choice.notice}\n`);
  const view = new TerminalView(io, { estimatedTokens: choice.kind === "scripted" });
  const terminal = io.stdin.isTTY === true;
  const exit = io.exit ?? ((code: number) => process.exit(code));

  // the REPL's line reader: made at once, with its lines buffered, so none typed ahead is lost
  const reader = options.prompt === undefined ? openReader(io, `${chapter.command} >> `) : undefined;
  const lines = reader?.[Symbol.asyncIterator]();
  // it closes as its input ends (Ctrl-D, the end of a pipe), maybe before the first prompt; a closed
  // reader's prompt() throws on Node 24 (ERR_USE_AFTER_CLOSE), so from then on the prompt is printed
  // as text, as Node 20 and 22 print it
  let inputEnded = false;
  reader?.once("close", () => {
    inputEnded = true;
  });
  const showPrompt = () => (inputEnded ? io.stdout.write(`${chapter.command} >> `) : reader?.prompt());
  let controller: AbortController | null = null;
  const unanswerable = new Set<string>();
  let asking: Promise<unknown> = Promise.resolve(); // the question being put: the next one waits for it
  const context: CliContext = {
    client: choice.client ?? createClient({ offline: true, env: io.env }).client,
    model: choice.model,
    options,
    view,
    ask(question, choices = DEFAULT_CHOICES) {
      const answer = asking.then(() => put(question, choices));
      asking = answer.catch(() => undefined);
      return answer;
    },
  };
  // one question on the terminal: a line reader puts a second question asked meanwhile nowhere
  const put = async (question: string, choices: readonly AskAnswer[]): Promise<AskAnswer> => {
    view.modelAnswered();
    view.endLine();
    if (!terminal) {
      if (!unanswerable.has(question)) {
        io.stderr.write(`${chapter.command}: no terminal to ask "${question}": answered no\n`);
      }
      unanswerable.add(question);
      return "no";
    }
    const signal = controller?.signal;
    if (reader) return askUser(reader, question, choices, signal);
    // one prompt on a terminal: a reader for this question only, as nothing else reads stdin
    const once = openReader(io);
    once.on("SIGINT", onInterrupt);
    try {
      return await askUser(once, question, choices, signal);
    } finally {
      once.close();
    }
  };

  let history: MessageParam[] = [];
  // what historyChanged has not been told, and the history as the run in flight began
  let untold = false;
  let atRunStart: MessageParam[] = [];
  const tell = async (snapshot: MessageParam[]) => {
    untold = false;
    await chapter.historyChanged?.(snapshot, context);
  };

  let interrupts = 0;
  let exiting = false;
  const onInterrupt = () => {
    interrupts++;
    if (chapter.interruptible && controller && !controller.signal.aborted && interrupts === 1) {
      view.note("(interrupted; press Ctrl-C again to exit)");
      controller.abort();
      return;
    }
    if (exiting) return exit(EXIT_CODES.interrupted); // pressed again while the history is saved
    exiting = true;
    killRunningCommands();
    view.endLine();
    // a run cut in the middle may have left a tool call unanswered: then tell the history it began with
    const saving = untold ? tell(structuredClone(isValidHistory(history) ? history : atRunStart)) : undefined;
    void Promise.resolve(saving)
      .catch((error: unknown) => fail(error, choice))
      .finally(() => exit(EXIT_CODES.interrupted));
  };
  process.on("SIGINT", onInterrupt);
  reader?.on("SIGINT", onInterrupt); // on a TTY readline turns Ctrl-C into this event

  const runOnce = async (prompt: string): Promise<number> => {
    appendUserText(history, prompt);
    untold = true;
    atRunStart = structuredClone(history);
    controller = new AbortController();
    interrupts = 0;
    const runContext: RunContext = { ...context, signal: controller.signal };
    let code: number;
    try {
      const result = await chapter.run(history, runContext);
      view.summary(result);
      chapter.afterRun?.(result, runContext);
      if (options.json) io.stdout.write(`${JSON.stringify(result)}\n`);
      code = exitCodeFor(result.stopReason, chapter.exitCodes);
    } catch (error) {
      view.modelAnswered();
      view.endLine();
      fail(error, choice);
      code = EXIT_CODES.error;
    } finally {
      controller = null;
    }
    if (exiting) return code;
    try {
      await tell(history);
    } catch (error) {
      fail(error, choice);
      code = EXIT_CODES.error;
    }
    return code;
  };

  // a REPL command: like a run, it may change the history, Ctrl-C stops it, and the history is told
  const runCommand = async (command: ReplCommand, args: string): Promise<number> => {
    untold = true;
    atRunStart = structuredClone(history);
    controller = new AbortController();
    interrupts = 0;
    let code: number = EXIT_CODES.final_answer;
    try {
      await command.run(args, history, { ...context, signal: controller.signal });
    } catch (error) {
      view.modelAnswered();
      view.endLine();
      fail(error, choice);
      code = EXIT_CODES.error;
    } finally {
      controller = null;
    }
    if (exiting) return code;
    await tell(history).catch((error: unknown) => fail(error, choice));
    return code;
  };
  const runLine = (line: string): Promise<number> => {
    const [, name, args] = /^\/(\S+)\s*([\s\S]*)$/.exec(line) ?? [];
    const command = chapter.commands?.find((c) => c.name === name);
    return command ? runCommand(command, args.trim()) : runOnce(line);
  };

  try {
    if (chapter.loadHistory) {
      try {
        history = await chapter.loadHistory(context);
      } catch (error) {
        fail(error, choice);
        return EXIT_CODES.error;
      }
      const [problem] = !Array.isArray(history)
        ? ["loadHistory gave no list of messages"]
        : history.length > 0
          ? historyProblems(history)
          : [];
      if (problem) {
        fail(new Error(`the loaded history is not one the API accepts: ${problem}`), choice);
        return EXIT_CODES.error;
      }
    }
    if (!reader || !lines) return await runOnce(options.prompt ?? "");
    return await repl(reader, lines, io, runLine, showPrompt);
  } finally {
    process.off("SIGINT", onInterrupt);
    reader?.close();
    if (untold && !exiting) await tell(history).catch((error: unknown) => fail(error, choice));
  }
}

/** A line reader on the CLI's input; on a TTY it owns the terminal (and turns Ctrl-C into SIGINT). */
function openReader(io: CliIo, prompt?: string): Interface {
  return createInterface({ input: io.stdin, output: io.stdout, terminal: io.stdin.isTTY === true, prompt });
}

/**
 * Read prompts until q, exit or end of input; each runs on the same history.
 * Contract: the lines read before the input ended still run, each after its prompt.
 */
async function repl(
  reader: Interface,
  lines: AsyncIterator<string>,
  io: CliIo,
  runOnce: (prompt: string) => Promise<number>,
  showPrompt: () => void,
): Promise<number> {
  showPrompt();
  for (let next = await lines.next(); !next.done; next = await lines.next()) {
    const prompt = next.value.trim();
    if (prompt === "q" || prompt === "exit") break;
    if (prompt !== "") await runOnce(prompt);
    showPrompt();
  }
  reader.close();
  io.stdout.write("\n");
  return 0;
}
