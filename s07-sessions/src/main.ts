/**
 * s07's command line: s06's, with every run a session. Before the first prompt the session is
 * opened (`openSession`): a new one, or `--continue`, `--resume[=ID]`, `--fork`; its history is
 * the one the first prompt goes on from. Each prompt is written to the transcript as it is sent
 * (after UserPromptSubmit), the loop writes the rest, and the lock is released at exit.
 */
import { realpathSync } from "node:fs";
import { relative } from "node:path";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { type AgentStopReason, terminalObserver } from "@harness/s03-streaming";
import { isValidTraceId, newTraceId, TraceWriter, traceDir } from "@harness/s04-tracing";
import {
  type CliRules,
  defaultPermissionSettings,
  isPermissionMode,
  LOCAL_SETTINGS,
  loadPermissionSettings,
  PERMISSION_MODES,
  type PermissionMode,
  type PermissionRequest,
  type PermissionSettings,
  SettingsError,
  saveAllowRules,
} from "@harness/s05-permissions";
import {
  decideTrust,
  type HookSession,
  type LoadedHooks,
  loadHooks,
  runHooks,
  sessionStartInput,
  userPromptInput,
} from "@harness/s06-hooks";
import {
  type AskAnswer,
  type ChapterCli,
  type CliContext,
  type CliIo,
  type CliOptions,
  type ExtraOption,
  parseCliArgs,
  type RunContext,
  runChapterCli,
} from "@harness/shared";
import { addMessage } from "./add-message.ts";
import { agentLoop } from "./agent-loop.ts";
import { formatSessionLine } from "./format-sessions.ts";
import { interruptedResults } from "./interrupted-results.ts";
import { type OpenSession, openSession, type SessionChoice } from "./open-session.ts";
import { listSessions, sessionsDir } from "./sessions-dir.ts";

/** s06's options (`--trace`, the mode and the rules), and the session's. */
export const S07_OPTIONS: ExtraOption[] = [
  {
    name: "trace",
    type: "string",
    optionalValue: true,
    help: "--trace[=ID]        record every iteration (read it with pnpm trace)",
  },
  {
    name: "permission-mode",
    type: "string",
    help: `--permission-mode M what runs when no rule names it: ${PERMISSION_MODES.join(", ")}`,
  },
  {
    name: "allow",
    type: "string",
    multiple: true,
    help: "--allow RULE        run what RULE names without asking (repeatable)",
  },
  { name: "ask", type: "string", multiple: true, help: "--ask RULE          ask before what RULE names (repeatable)" },
  { name: "deny", type: "string", multiple: true, help: "--deny RULE         never run what RULE names (repeatable)" },
  {
    name: "continue",
    type: "boolean",
    help: "--continue          go on with this project's most recent session",
  },
  {
    name: "resume",
    type: "string",
    optionalValue: true,
    help: "--resume[=ID]       go on with session ID (alone: pick one on the terminal)",
  },
  {
    name: "fork",
    type: "boolean",
    help: "--fork              with --continue or --resume: go on in a copy, the original left as it is",
  },
];

/** How many sessions `--resume` offers to pick from. */
export const SESSIONS_OFFERED = 10;

/** What the session part of the CLI needs besides the options. */
export interface SessionsCliOptions {
  /** True when stdin is a terminal: `--resume` alone may ask there which session. */
  terminal: boolean;
  /** Tell the user one line (on stderr). */
  say: (line: string) => void;
  /** Where HARNESS_HOME is read from. */
  env: NodeJS.ProcessEnv;
}

/** The chapter's CLI: s06's, its runs kept in a session. */
export function sessionsCli(
  settings: PermissionSettings,
  mode: PermissionMode,
  loaded: LoadedHooks,
  options: SessionsCliOptions,
): ChapterCli<AgentStopReason> & { session(): OpenSession | undefined } {
  let session: OpenSession | undefined;
  let trace: TraceWriter | undefined;
  let announced = false;
  let started: Promise<{ hooks: HookSession; runProjectHooks: boolean }> | undefined;
  let startContext: string[] = [];
  // once per process, before the first prompt: trust, then SessionStart
  const start = async (context: RunContext, open: OpenSession) => {
    const hooks = { sessionId: open.writer.sessionId, cwd: context.options.cwd };
    if (loaded.hooks.length === 0) return { hooks, runProjectHooks: false };
    const trust = await decideTrust(context.options.cwd, loaded, { ask: (question) => context.ask(question) });
    if (trust.notice) context.view.note(trust.notice);
    const opening = await runHooks(loaded.hooks, sessionStartInput(hooks), {
      cwd: hooks.cwd,
      runProjectHooks: trust.runProjectHooks,
    });
    for (const line of opening.notices) context.view.note(`hook: ${line}`);
    startContext = opening.context;
    return { hooks, runProjectHooks: trust.runProjectHooks };
  };
  const sayWhereTheTraceIs = ({ view, options }: RunContext) => {
    if (!trace) return;
    const here = process.env.INIT_CWD ?? process.cwd();
    const near = relative(here, options.cwd) || ".";
    const custom =
      traceDir(options.cwd) === traceDir(here) ? "" : ` --cwd ${near.startsWith("..") ? options.cwd : near}`;
    view.note(
      `trace ${trace.traceId} → ${trace.path}\n  pnpm trace show ${trace.traceId}${custom}   ·   pnpm trace view ${trace.traceId}${custom}`,
    );
  };
  return {
    command: "s07",
    summary: "every conversation written down as it happens, and resumed",
    interruptible: true,
    exitCodes: { aborted: 130 },
    extraOptions: S07_OPTIONS,
    session: () => session,
    async loadHistory(context) {
      const choice = await chooseSession(context, options);
      session = openSession(choice, { cwd: context.options.cwd, model: context.model, env: options.env });
      for (const note of session.notes) options.say(note);
      announced = choice.kind !== "new"; // its notes said which session it is
      return session.history;
    },
    async run(history, context) {
      const { client, model, signal, view } = context;
      const open = session as OpenSession; // loadHistory ran first
      started ??= start(context, open);
      const { hooks, runProjectHooks } = await started;
      const prompt = history.at(-1);
      if (loaded.hooks.length > 0 && prompt?.role === "user" && typeof prompt.content === "string") {
        const submitted = await runHooks(loaded.hooks, userPromptInput(hooks, prompt.content), {
          cwd: hooks.cwd,
          signal,
          runProjectHooks,
        });
        for (const line of submitted.notices) view.note(`hook: ${line}`);
        if (submitted.block !== undefined) {
          history.pop(); // the prompt is not sent, nor written down
          view.note(`hook: prompt blocked: ${submitted.block}`);
          return blocked();
        }
        const extra = [...startContext, ...submitted.context];
        startContext = [];
        if (extra.length > 0) prompt.content = `${prompt.content}\n\n${extra.join("\n")}`;
      }
      // the prompt, as it is sent, goes on disk first; the loop writes every message after it
      open.writer.append(promptOf(history));
      if (!announced) options.say(`session ${open.writer.sessionId} → ${open.writer.path}`);
      announced = true;
      const id = context.options.extra.trace; // true: `--trace` alone
      if (id !== undefined && !trace) {
        trace = new TraceWriter(id === true ? newTraceId() : String(id), traceDir(context.options.cwd));
      }
      const running = agentLoop(client, history, {
        model,
        cwd: context.options.cwd,
        maxTurns: context.options.maxTurns,
        bashTimeoutMs: context.options.bashTimeoutSeconds * 1000,
        signal,
        trace,
        observer: { ...terminalObserver(view), hookNotice: (line: string) => view.note(`hook: ${line}`) },
        permissions: settings, // the same object for every prompt: "always" holds for the session
        permissionMode: mode,
        ask: (request) => askTheUser(request, context),
        hooks: loaded.hooks,
        runProjectHooks,
        session: hooks,
        transcript: open.writer,
      });
      return running.catch((error) => {
        // a transcript that could not be written stops the run: answer what it left unanswered
        const repair = interruptedResults(history);
        if (repair) addMessage(history, repair);
        sayWhereTheTraceIs(context);
        throw error;
      });
    },
    afterRun: (_result, context) => sayWhereTheTraceIs(context),
  };
}

/** What the CLI added to the history for the prompt: a message, or a text block joined to the last one. */
function promptOf(history: readonly MessageParam[]): MessageParam {
  const last = history.at(-1) as MessageParam; // the CLI added the prompt
  return typeof last.content === "string" ? last : { role: "user", content: last.content.slice(-1) };
}

/** The session the options name; `--resume` alone asks on the terminal which one. */
async function chooseSession(context: CliContext, options: SessionsCliOptions): Promise<SessionChoice> {
  const { extra, cwd } = context.options;
  const fork = extra.fork === true;
  if (extra.continue === true) return { kind: "continue", fork };
  if (typeof extra.resume === "string") return { kind: "resume", id: extra.resume, fork };
  if (extra.resume !== true) return { kind: "new" };
  const offered = listSessions(sessionsDir(cwd, options.env)).slice(0, SESSIONS_OFFERED);
  if (offered.length === 0) throw new Error("no session to resume in this project; start one without --resume");
  if (!options.terminal) {
    const ids = offered.map((s) => s.id).join(", ");
    throw new Error(`--resume needs an id when there is no terminal to pick on: --resume=ID (the latest: ${ids})`);
  }
  options.say(`the sessions of this project, the most recent first:`);
  offered.forEach((file, i) => {
    options.say(`  ${i + 1}. ${formatSessionLine(file)}`);
  });
  for (const [i, file] of offered.entries()) {
    if ((await context.ask(`resume ${i + 1} (${file.id.slice(0, 8)})?`)) === "yes")
      return { kind: "resume", id: file.id, fork };
  }
  throw new Error("no session was picked");
}

/** The result of a prompt a UserPromptSubmit hook blocked: nothing was sent. */
function blocked() {
  return {
    stopReason: "final_answer" as const,
    turns: 0,
    toolCalls: 0,
    finalText: "",
    providerStopReason: null,
    usage: { inputTokens: 0, outputTokens: 0 },
  };
}

/** Put a request to the user; "always" also writes its rules to the local settings, and says so. */
async function askTheUser(request: PermissionRequest, context: RunContext): Promise<AskAnswer> {
  const answer = await context.ask(request.question, request.choices);
  if (answer === "always") {
    const rules = request.rules.join(", ");
    const saved = saveAllowRules(context.options.cwd, request.rules);
    context.view.note(
      saved instanceof SettingsError
        ? `allowed for this session: ${rules} (not saved: ${saved.message})`
        : `allowed from now on: ${rules} (in ${LOCAL_SETTINGS})`,
    );
  }
  return answer;
}

/**
 * Run the CLI on `argv`. The rules, the mode and the session options are checked first: a bad one
 * is one line on stderr and exit status 1, before any model call. The session's lock is released
 * when the CLI returns, or as the process exits on Ctrl-C.
 */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  const fail = (message: string) => {
    io.stderr.write(`s07: error: ${message}\n`);
    return 1;
  };
  const badId = argv.find((arg) => arg.startsWith("--trace=") && !isValidTraceId(arg.slice("--trace=".length)));
  if (badId) return fail(`invalid trace id "${badId.slice(8)}": use letters, digits, . _ -`);
  let options: CliOptions | undefined;
  try {
    options = parseCliArgs(argv, { cwd: io.env.INIT_CWD ?? process.cwd() }, S07_OPTIONS);
  } catch {
    options = undefined;
  }
  const say = (line: string) => io.stderr.write(`s07: ${line}\n`);
  const terminal = io.stdin.isTTY === true;
  const env = io.env;
  // bad usage or --help: the shared CLI says what is wrong, or prints the help
  if (!options || options.help) {
    const empty = { hooks: [], problems: [], projectDefinitions: [] };
    return runChapterCli(sessionsCli(defaultPermissionSettings(), "default", empty, { terminal, say, env }), argv, io);
  }

  const { extra } = options;
  if (extra.continue === true && extra.resume !== undefined) return fail("--continue and --resume: give one of them");
  if (extra.fork === true && extra.continue !== true && extra.resume === undefined) {
    return fail("--fork goes with --continue or --resume: it copies the session they open");
  }
  const rules = (name: keyof CliRules) => extra[name] as string[] | undefined;
  const settings = loadPermissionSettings(options.cwd, {
    allow: rules("allow"),
    ask: rules("ask"),
    deny: rules("deny"),
  });
  if (settings instanceof SettingsError) return fail(settings.message);
  const mode = extra["permission-mode"] ?? settings.defaultMode;
  if (!isPermissionMode(mode)) {
    return fail(`--permission-mode: "${mode}" is not a mode; use one of ${PERMISSION_MODES.join(", ")}`);
  }
  const loaded = loadHooks(options.cwd);
  for (const problem of loaded.problems) io.stderr.write(`s07: hooks: ${problem}\n`);
  const cli = sessionsCli(settings, mode, loaded, { terminal, say, env });
  const close = () => cli.session()?.close();
  process.on("exit", close); // Ctrl-C ends the process from inside the CLI: the lock goes too
  try {
    return await runChapterCli(cli, argv, io);
  } finally {
    process.off("exit", close);
    close();
  }
}

function processIo(): CliIo {
  return { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env };
}

/** True when this file is the program node runs (`pnpm s07`), not a module a test imports. */
function isProgram(): boolean {
  try {
    return process.argv[1] !== undefined && realpathSync(process.argv[1]) === realpathSync(import.meta.filename);
  } catch {
    return false;
  }
}

if (isProgram()) process.exit(await main(process.argv.slice(2)));
