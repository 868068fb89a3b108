/**
 * The CLI contract every chapter shares: parse the options, let the chapter build its session,
 * run one prompt or a REPL, and map each result to an exit status. A chapter's `main.ts` is a
 * list: its flags, then `start`, which builds each mechanism, subscribes the listeners to the
 * loop's events and says how one prompt runs.
 */
import { createInterface, type Interface } from "node:readline";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { type AgentLoopResult, appendUserText, historyProblems, killRunningCommands } from "@harness/shared";
import { type AskAnswer, askUser, DEFAULT_CHOICES } from "./ask-user.ts";
import type { ChapterCli, ChapterSession, CliIo, CliStart, Connection } from "./chapter-cli.ts";
import { createClient } from "./create-client.ts";
import { credentialValues, withoutSecrets } from "./credential-values.ts";
import { describeError } from "./describe-error.ts";
import { EXIT_CODES, exitCodeFor } from "./exit-code-for.ts";
import { type CliOptions, parseCliArgs, UsageError, usage } from "./parse-cli-args.ts";
import { processIo } from "./process-io.ts";
import { TerminalView } from "./terminal-view.ts";

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
    try {
      session?.close?.();
    } catch (error) {
      fail(error); // said, and the CLI exits all the same
    }
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
    let result: AgentLoopResult<R> | undefined;
    let failure: { error: unknown } | undefined;
    let prompt: string | undefined = command ? undefined : line; // a command may hand back a prompt to send
    try {
      if (command) {
        prompt = (await command.run(args.trim(), history, controller.signal)) ?? undefined;
        code = EXIT_CODES.final_answer;
      }
      if (prompt !== undefined) {
        appendUserText(history, prompt);
        result = await started.run(history, controller.signal);
        code = exitCodeFor(result.stopReason, chapter.exitCodes);
      }
    } catch (error) {
      view.modelAnswered();
      view.endLine();
      failure = { error };
    } finally {
      controller = null;
    }
    if (exiting) return code;
    if (prompt !== undefined) {
      try {
        started.afterRun?.(history, result);
      } catch (error) {
        failure ??= { error };
        code = EXIT_CODES.error;
      }
    }
    // last, after what afterRun says: the error line, or the JSON line (the last of stdout)
    if (failure) fail(failure.error);
    if (result && options.json) io.stdout.write(`${JSON.stringify(result)}\n`);
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
    const [problem] = !Array.isArray(history)
      ? ["the session gave no list of messages"]
      : history.length > 0
        ? historyProblems(history)
        : [];
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
    try {
      if (!exiting) session?.close?.();
    } catch (error) {
      fail(error); // said, though the status is already decided: the CLI never throws
    }
  }
}

/** A line reader on the CLI's input; on a TTY it owns the terminal (and turns Ctrl-C into SIGINT). */
function openReader(io: CliIo, prompt?: string): Interface {
  return createInterface({ input: io.stdin, output: io.stdout, terminal: io.stdin.isTTY === true, prompt });
}
