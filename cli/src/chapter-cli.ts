/**
 * What a chapter's command line is, as the runner (`runChapterCli`) reads it: its name, options and
 * stop reasons, and `start`, which builds the session; what `start` is given; and the session it
 * returns. A chapter's main.ts fills these in; run-chapter-cli.ts does the rest.
 */
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import type { AgentLoopResult, LoopStopReason } from "@harness/shared";
import type { AskAnswer } from "./ask-user.ts";
import type { ClientChoice, OfflineModel } from "./create-client.ts";
import type { CliOptions, ExtraOption } from "./parse-cli-args.ts";
import type { TerminalView } from "./terminal-view.ts";

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
   * Run it with the rest of the line (trimmed, maybe empty); it may change `history` in place. A
   * text it returns is sent as the prompt in the line's place, as a prompt typed is (s13's `/NAME`).
   * Contract: Ctrl-C aborts `signal`; a throw is one error line, and the REPL goes on.
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: most commands send nothing, and say so by returning nothing
  run(args: string, history: MessageParam[], signal: AbortSignal): Promise<void | string>;
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
