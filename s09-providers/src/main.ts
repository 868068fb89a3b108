/**
 * s09's command line (provisional: s06's, until s08 lands), plus `--provider`: which wire format
 * the model calls speak (`selectProvider` says how it defaults from the environment). The adapter
 * is chosen once at start, in place of s06's client; every other option works as before.
 */
import { realpathSync } from "node:fs";
import { relative } from "node:path";
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
  type CliIo,
  type CliOptions,
  type ExtraOption,
  parseCliArgs,
  type RunContext,
  runChapterCli,
} from "@harness/shared";
import { agentLoop } from "./agent-loop.ts";
import { createAdapter } from "./create-adapter.ts";
import { describeOpenAiError, type OpenAiErrorContext } from "./describe-openai-error.ts";
import { type ProviderAdapter, WIRE_FORMATS } from "./provider-adapter.ts";
import { DEFAULT_OPENAI_BASE_URL, isWireFormat } from "./select-provider.ts";

/** s06's options, unchanged, and `--provider`. */
export const S09_OPTIONS: ExtraOption[] = [
  {
    name: "provider",
    type: "string",
    help:
      `--provider P        the wire format: ${WIRE_FORMATS.join(", ")}; default: anthropic\n` +
      "                      with an Anthropic key, else openai-chat with OPENAI_API_KEY (endpoint:\n" +
      "                      OPENAI_BASE_URL); with no key for it, the scripted model speaks it",
  },
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
];

/** The chapter's CLI, with the rules read, the mode chosen, the hooks loaded; notices go to `stderr`. */
export function providersCli(
  settings: PermissionSettings,
  mode: PermissionMode,
  loaded: LoadedHooks,
  stderr: NodeJS.WritableStream = process.stderr,
): ChapterCli<AgentStopReason> {
  let adapter: ProviderAdapter | undefined;
  let connection: OpenAiErrorContext | undefined; // where an OpenAI format's calls go, for its errors
  let trace: TraceWriter | undefined;
  let started: Promise<{ session: HookSession; runProjectHooks: boolean }> | undefined;
  // once per session, before the first prompt: trust, then SessionStart
  const start = async (context: RunContext) => {
    const session = { sessionId: crypto.randomUUID(), cwd: context.options.cwd };
    if (loaded.hooks.length === 0) return { session, runProjectHooks: false };
    const trust = await decideTrust(context.options.cwd, loaded, { ask: (question) => context.ask(question) });
    if (trust.notice) context.view.note(trust.notice);
    const opening = await runHooks(loaded.hooks, sessionStartInput(session), {
      cwd: session.cwd,
      runProjectHooks: trust.runProjectHooks,
    });
    for (const line of opening.notices) context.view.note(`hook: ${line}`);
    startContext = opening.context;
    return { session, runProjectHooks: trust.runProjectHooks };
  };
  let startContext: string[] = [];
  const sayWhereTheTraceIs = ({ view, options }: RunContext) => {
    if (!trace) return;
    const here = process.env.INIT_CWD ?? process.cwd();
    // the tracer reads the traces of the directory it is started from; name the project when it is another
    const near = relative(here, options.cwd) || ".";
    const custom =
      traceDir(options.cwd) === traceDir(here) ? "" : ` --cwd ${near.startsWith("..") ? options.cwd : near}`;
    view.note(
      `trace ${trace.traceId} → ${trace.path}\n  pnpm trace show ${trace.traceId}${custom}   ·   pnpm trace view ${trace.traceId}${custom}`,
    );
  };
  return {
    command: "s09",
    summary: "one loop, many wire formats (--provider)",
    interruptible: true,
    exitCodes: { aborted: 130 },
    extraOptions: S09_OPTIONS,
    connect(options, env) {
      const provider = options.extra.provider;
      const choice = createAdapter({
        provider: isWireFormat(provider) ? provider : undefined,
        offline: options.offline,
        model: options.model,
        modelTimeoutSeconds: options.modelTimeoutSeconds,
        env,
        notice: (line) => stderr.write(`s09: ${line}\n`),
      });
      adapter = choice.adapter;
      if (choice.format !== "anthropic") {
        connection = { baseURL: choice.baseURL ?? DEFAULT_OPENAI_BASE_URL, keySource: choice.keySource };
      }
      return choice;
    },
    async run(history, context) {
      const { model, options, signal, view } = context;
      if (!adapter) throw new Error("no provider was chosen");
      started ??= start(context);
      const { session, runProjectHooks } = await started;
      const prompt = history.at(-1);
      if (loaded.hooks.length > 0 && prompt?.role === "user" && typeof prompt.content === "string") {
        const submitted = await runHooks(loaded.hooks, userPromptInput(session, prompt.content), {
          cwd: session.cwd,
          signal,
          runProjectHooks,
        });
        for (const line of submitted.notices) view.note(`hook: ${line}`);
        if (submitted.block !== undefined) {
          history.pop(); // the prompt is not sent
          view.note(`hook: prompt blocked: ${submitted.block}`);
          return blocked();
        }
        const extra = [...startContext, ...submitted.context];
        startContext = [];
        if (extra.length > 0) prompt.content = `${prompt.content}\n\n${extra.join("\n")}`;
      }
      const id = options.extra.trace; // true: `--trace` alone
      if (id !== undefined && !trace) {
        trace = new TraceWriter(id === true ? newTraceId() : String(id), traceDir(options.cwd));
      }
      const running = agentLoop(adapter, history, {
        model,
        cwd: options.cwd,
        maxTurns: options.maxTurns,
        bashTimeoutMs: options.bashTimeoutSeconds * 1000,
        signal,
        trace,
        observer: { ...terminalObserver(view), hookNotice: (line: string) => view.note(`hook: ${line}`) },
        permissions: settings, // the same object for every prompt: "always" holds for the session
        permissionMode: mode,
        ask: (request) => askTheUser(request, context),
        hooks: loaded.hooks,
        runProjectHooks,
        session,
      });
      return running.catch((error) => {
        sayWhereTheTraceIs(context);
        const line = connection && describeOpenAiError(error, connection);
        throw line ? new Error(line, { cause: error }) : error;
      });
    },
    afterRun: (_result, context) => sayWhereTheTraceIs(context),
  };
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
 * Run the CLI on `argv`. The rules and the mode are read first: a bad one is one line on stderr
 * and exit status 1, before any model call. The hooks are loaded then too; what cannot be
 * loaded is printed one line each, and the rest run.
 */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  const fail = (message: string) => {
    io.stderr.write(`s09: error: ${message}\n`);
    return 1;
  };
  const badId = argv.find((arg) => arg.startsWith("--trace=") && !isValidTraceId(arg.slice("--trace=".length)));
  if (badId) return fail(`invalid trace id "${badId.slice(8)}": use letters, digits, . _ -`);
  let options: CliOptions | undefined;
  try {
    options = parseCliArgs(argv, { cwd: io.env.INIT_CWD ?? process.cwd() }, S09_OPTIONS);
  } catch {
    options = undefined;
  }
  // bad usage or --help: the shared CLI says what is wrong, or prints the help
  if (!options || options.help)
    return runChapterCli(providersCli(defaultPermissionSettings(), "default", emptyHooks(), io.stderr), argv, io);

  const { extra } = options;
  if (extra.provider !== undefined && !isWireFormat(extra.provider)) {
    return fail(`--provider: "${extra.provider}" is not a wire format; use one of ${WIRE_FORMATS.join(", ")}`);
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
  for (const problem of loaded.problems) io.stderr.write(`s09: hooks: ${problem}\n`);
  return runChapterCli(providersCli(settings, mode, loaded, io.stderr), argv, io);
}

function emptyHooks(): LoadedHooks {
  return { hooks: [], problems: [], projectDefinitions: [] };
}

function processIo(): CliIo {
  return { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env };
}

/** True when this file is the program node runs (`pnpm s09`), not a module a test imports. */
function isProgram(): boolean {
  try {
    return process.argv[1] !== undefined && realpathSync(process.argv[1]) === realpathSync(import.meta.filename);
  } catch {
    return false;
  }
}

if (isProgram()) process.exit(await main(process.argv.slice(2)));
