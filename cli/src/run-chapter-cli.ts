/**
 * The CLI contract every chapter shares: parse the options, let the chapter build its session,
 * run one prompt or a REPL, and map each result to an exit status. A chapter's `main.ts` is a
 * list: its flags, then `start`, which builds each mechanism, subscribes the listeners to the
 * loop's events and says how one prompt runs.
 */
import { createInterface, type Interface } from "node:readline";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import {
  type AgentLoopResult,
  appendUserText,
  historyProblems,
  killRunningCommands,
  type LoopStopReason,
} from "@harness/shared";
import { type AskAnswer, askUser, DEFAULT_CHOICES } from "./ask-user.ts";
import { type ClientChoice, createClient, type OfflineModel } from "./create-client.ts";
import { credentialValues, withoutSecrets } from "./credential-values.ts";
import { describeError } from "./describe-error.ts";
import { EXIT_CODES, exitCodeFor } from "./exit-code-for.ts";
import { type CliOptions, type ExtraOption, parseCliArgs, UsageError, usage } from "./parse-cli-args.ts";
import { processIo } from "./process-io.ts";
import { TerminalView } from "./terminal-view.ts";

/** The streams and environment a CLI run uses (tests pass their own). */
export interface CliIo {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  /** Ends the process at once, on Ctrl-C (default: `process.exit`). */
  exit?: (code: number) => void;
}

/** Where the model calls go, as far as the CLI needs to know: its start line, and what an error line names. */
export type Connection = Omit<ClientChoice, "client">;

/** What a chapter's `start` is given: the options, the streams, the view, and the user. */
export interface CliStart {
  options: CliOptions;
  io: CliIo;
  /** The terminal view: hand `view.show` to the loop's events. */
  view: TerminalView;
  /**
   * Ask the user a question and wait for the answer (by default yes or no), on the terminal.
   * Contract: never throws; questions asked at once are put one after another; with no terminal
   * the answer is "no", said once per question on stderr; Ctrl-C or the end of input answers "no".
   */
  ask(question: string, choices?: readonly AskAnswer[]): Promise<AskAnswer>;
  /** Tell the user one line on stderr, after the chapter's name (`s07: resumed session ...`). */
  say(line: string): void;
  /**
   * The Anthropic client the options and the environment choose: the API with a key, else
   * `offline` (made only then). Its start line is printed; an error line names its endpoint.
   */
  connect(offline: () => OfflineModel): ClientChoice;
  /** For a chapter that chose where its calls go on its own (s09): print its start line, name it in errors. */
  use(connection: Connection): void;
}

/** A chapter's session, built once by `start`: how each prompt runs, and what it holds. */
export interface ChapterSession<R extends string> {
  /** The conversation the first prompt continues (a resumed session); default: none. */
  history?: MessageParam[];
  /**
   * Run the loop on `history`, which ends with the user's prompt. Ctrl-C aborts `signal` when the
   * chapter is `interruptible`.
   */
  run(history: MessageParam[], signal: AbortSignal): Promise<AgentLoopResult<R>>;
  /** After each run, answered or failed (`result` then absent): what to say, what to repair. */
  afterRun?(history: MessageParam[], result?: AgentLoopResult<R>): void;
  /** Commands the REPL reads as `/name [arguments]`. */
  commands?: readonly ReplCommand[];
  /** As the CLI ends, on every path, Ctrl-C included: release what the session holds (a lock, hooks). */
  close?(): void;
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
   * Contract: Ctrl-C aborts `signal`; a throw is one error line, and the REPL goes on.
   */
  run(args: string, history: MessageParam[], signal: AbortSignal): Promise<void>;
}

/** A chapter's CLI: its name and help, its options and stop reasons, and how its session starts. */
export interface ChapterCli<R extends string> {
  /** `s01`, `s02`, ... */
  command: string;
  /** One line for `--help`. */
  summary: string;
  /** Options beyond the contract. */
  flags?: readonly ExtraOption[];
  /**
   * The exit status of each stop reason the chapter adds to s01's (`{ aborted: 130 }`); the
   * contract's own (`EXIT_CODES`) cannot be changed. A result listed nowhere exits 1.
   */
  exitCodes?: { readonly [K in Exclude<R, LoopStopReason>]: number };
  /** `/name` lines for `--help` (the commands themselves come with the session). */
  commandHelp?: readonly string[];
  /** Lines the help adds under the environment it reads (a chapter that reads more variables). */
  environment?: readonly string[];
  /**
   * True when `run` honours its signal: Ctrl-C then aborts the run and returns to the prompt, and
   * a second Ctrl-C exits. Otherwise Ctrl-C exits at once.
   */
  interruptible?: boolean;
  /**
   * Build the session, once, before the first prompt: the model, each mechanism, the listeners.
   * Contract: a throw is one error line and exit status 1, before any prompt runs.
   */
  start(cli: CliStart): ChapterSession<R> | Promise<ChapterSession<R>>;
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
  let connection: Connection = { model: "", kind: "scripted", notice: "" };
  const fail = (error: unknown) => {
    // a server may echo the key it was sent: the line never carries one
    const line = withoutSecrets(describeError(error, connection), credentialValues(io.env));
    io.stderr.write(`${chapter.command}: error: ${line}\n`);
    if (io.env.DEBUG && error instanceof Error && error.stack) io.stderr.write(`${error.stack}\n`);
  };
  let options: CliOptions;
  try {
    options = parseCliArgs(argv, { cwd: io.env.INIT_CWD ?? process.cwd() }, [...(chapter.flags ?? [])]);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    fail(error);
    return EXIT_CODES.error;
  }
  if (options.help) {
    const { command, summary, flags, exitCodes, commandHelp, environment } = chapter;
    io.stdout.write(`${usage(command, summary, [...(flags ?? [])], exitCodes, commandHelp, environment)}\n`);
    return 0;
  }
  const view = new TerminalView(io);
  const terminal = io.stdin.isTTY === true;
  const exit = io.exit ?? ((code: number) => process.exit(code));

  // the REPL's line reader: made at once, with its lines buffered, so none typed ahead is lost
  const reader = options.prompt === undefined ? openReader(io, `${chapter.command} >> `) : undefined;
  const lines = reader?.[Symbol.asyncIterator]();
  // it closes as its input ends (Ctrl-D, the end of a pipe), maybe before the first prompt; a closed
  // reader's prompt() throws on Node 24 (ERR_USE_AFTER_CLOSE), so from then on the prompt is text
  let inputEnded = false;
  reader?.once("close", () => {
    inputEnded = true;
  });
  const showPrompt = () => (inputEnded ? io.stdout.write(`${chapter.command} >> `) : reader?.prompt());

  let controller: AbortController | null = null;
  const unanswerable = new Set<string>();
  let asking: Promise<unknown> = Promise.resolve(); // the question being put: the next one waits for it
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
    if (reader) return inputEnded ? "no" : askUser(reader, question, choices, signal);
    // one prompt on a terminal: a reader for this question only, as nothing else reads stdin
    const once = openReader(io);
    once.on("SIGINT", onInterrupt);
    try {
      return await askUser(once, question, choices, signal);
    } finally {
      once.close();
    }
  };
  const cli: CliStart = {
    options,
    io,
    view,
    ask(question, choices = DEFAULT_CHOICES) {
      const answer = asking.then(() => put(question, choices));
      asking = answer.catch(() => undefined);
      return answer;
    },
    say: (line) => io.stderr.write(`${chapter.command}: ${line}\n`),
    connect(offline) {
      const { offline: scripted, model, modelTimeoutSeconds } = options;
      const choice = createClient({ offline: scripted, model, modelTimeoutSeconds, env: io.env, scripted: offline });
      cli.use(choice);
      return choice;
    },
    use(chosen) {
      connection = chosen;
      view.estimatedTokens = chosen.kind === "scripted";
      io.stderr.write(`${chosen.notice}\n`);
    },
  };

  let session: ChapterSession<R> | undefined;
  let exiting = false;
  let interrupts = 0;
  const onInterrupt = () => {
    interrupts++;
    if (chapter.interruptible && controller && !controller.signal.aborted && interrupts === 1) {
      view.note("(interrupted; press Ctrl-C again to exit)");
      controller.abort();
      return;
    }
    if (exiting) return;
    exiting = true;
    killRunningCommands();
    view.endLine();
    session?.close?.();
    exit(EXIT_CODES.interrupted);
  };
  process.on("SIGINT", onInterrupt);
  reader?.on("SIGINT", onInterrupt); // on a TTY readline turns Ctrl-C into this event

  // a prompt or a command: Ctrl-C stops it, an error is one line, and the REPL goes on
  const runLine = async (line: string, history: MessageParam[], started: ChapterSession<R>): Promise<number> => {
    const [, name, args] = (reader && /^\/(\S+)\s*([\s\S]*)$/.exec(line)) || [];
    const command = started.commands?.find((c) => c.name === name);
    controller = new AbortController();
    interrupts = 0;
    let code: number = EXIT_CODES.error;
    // what follows a run is said before the JSON line or the error line, which stay the last
    let after = !command;
    const afterRun = (result?: AgentLoopResult<R>) => {
      const due = after && !exiting;
      after = false; // once, even when it throws
      if (due) started.afterRun?.(history, result);
    };
    try {
      if (command) {
        await command.run(args.trim(), history, controller.signal);
        code = EXIT_CODES.final_answer;
      } else {
        appendUserText(history, line);
        const result = await started.run(history, controller.signal);
        afterRun(result);
        if (options.json) io.stdout.write(`${JSON.stringify(result)}\n`);
        code = exitCodeFor(result.stopReason, chapter.exitCodes);
      }
    } catch (error) {
      view.modelAnswered();
      view.endLine();
      afterRun();
      fail(error);
    } finally {
      controller = null;
    }
    return code;
  };

  try {
    try {
      session = await chapter.start(cli);
    } catch (error) {
      fail(error);
      return EXIT_CODES.error;
    }
    const history = session.history ?? [];
    const [problem] = history.length > 0 ? historyProblems(history) : [];
    if (problem) {
      fail(new Error(`the loaded history is not one the API accepts: ${problem}`));
      return EXIT_CODES.error;
    }
    if (!reader || !lines) return await runLine(options.prompt ?? "", history, session);
    // the REPL: prompts until q, exit or the end of input, each on the same history; the lines
    // read before the input ended still run, each after its prompt
    showPrompt();
    for (let next = await lines.next(); !next.done; next = await lines.next()) {
      const line = next.value.trim();
      if (line === "q" || line === "exit") break;
      if (line !== "") await runLine(line, history, session);
      showPrompt();
    }
    io.stdout.write("\n");
    return 0;
  } finally {
    process.off("SIGINT", onInterrupt);
    reader?.close();
    if (!exiting) session?.close?.();
  }
}

/** A line reader on the CLI's input; on a TTY it owns the terminal (and turns Ctrl-C into SIGINT). */
function openReader(io: CliIo, prompt?: string): Interface {
  return createInterface({ input: io.stdin, output: io.stdout, terminal: io.stdin.isTTY === true, prompt });
}
