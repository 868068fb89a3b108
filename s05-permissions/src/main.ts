/**
 * s05's command line: s04's (`--trace` included), plus the permission options. The rules are read
 * once, before any model call, from .harness/settings.json, .harness/settings.local.json and
 * `--allow` / `--ask` / `--deny`; a file or rule that is wrong stops the start with one line naming
 * the file, the line and the rule. A call that asks is put to the user: yes, no, or always, which
 * allows calls like it for the rest of the session and writes the rule to settings.local.json. With
 * no terminal to ask on, the answer is no.
 */
import { relative } from "node:path";
import {
  type AskAnswer,
  type ChapterCli,
  type CliIo,
  type CliOptions,
  type ExtraOption,
  isProgram,
  parseCliArgs,
  processIo,
  type RunContext,
  runChapterCli,
} from "@harness/cli";
import { type AgentStopReason, terminalObserver } from "@harness/s03-streaming";
import { isValidTraceId, newTraceId, TraceWriter, traceDir } from "@harness/s04-tracing";
import { demoBrain, ScriptedModel } from "@harness/scripted-model";
import { agentLoop } from "./agent-loop.ts";
import {
  type CliRules,
  defaultPermissionSettings,
  LOCAL_SETTINGS,
  loadPermissionSettings,
  type PermissionSettings,
} from "./load-settings.ts";
import type { PermissionRequest } from "./permission-gate.ts";
import { isPermissionMode, PERMISSION_MODES, type PermissionMode } from "./permission-mode.ts";
import { saveAllowRules } from "./save-allow-rules.ts";
import { SettingsError } from "./settings-error.ts";

/** s05's own options: s04's `--trace`, then the mode and the rules. */
export const S05_OPTIONS: ExtraOption[] = [
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

/** The chapter's CLI, with the rules read and the mode chosen. */
export function permissionsCli(settings: PermissionSettings, mode: PermissionMode): ChapterCli<AgentStopReason> {
  let trace: TraceWriter | undefined;
  return {
    command: "s05",
    summary: "allow, ask or deny in front of every tool call",
    scriptedModel: () => new ScriptedModel({ brain: demoBrain }),
    interruptible: true,
    exitCodes: { aborted: 130 },
    extraOptions: S05_OPTIONS,
    run(history, context) {
      const { client, model, options, signal, view } = context;
      const id = options.extra.trace; // true: `--trace` alone
      if (id !== undefined && !trace) {
        trace = new TraceWriter(id === true ? newTraceId() : String(id), traceDir(options.cwd));
      }
      const running = agentLoop(client, history, {
        model,
        cwd: options.cwd,
        maxTurns: options.maxTurns,
        bashTimeoutMs: options.bashTimeoutSeconds * 1000,
        signal,
        trace,
        observer: terminalObserver(view),
        permissions: settings, // the same object for every prompt: "always" holds for the session
        permissionMode: mode,
        ask: (request) => askTheUser(request, context),
      });
      return running.catch((error) => {
        sayWhereTheTraceIs(trace, context);
        throw error;
      });
    },
    afterRun: (_result, context) => sayWhereTheTraceIs(trace, context),
  };
}

/**
 * Say where the trace of this session is, and the commands that read it (nothing without one).
 * The tracer reads the traces of the directory it is started from, so the commands name the
 * project (`--cwd`) when it is another.
 */
export function sayWhereTheTraceIs(trace: TraceWriter | undefined, { view, options }: RunContext): void {
  if (!trace) return;
  const here = process.env.INIT_CWD ?? process.cwd();
  const near = relative(here, options.cwd) || ".";
  const custom = traceDir(options.cwd) === traceDir(here) ? "" : ` --cwd ${near.startsWith("..") ? options.cwd : near}`;
  view.note(
    `trace ${trace.traceId} → ${trace.path}\n  pnpm trace show ${trace.traceId}${custom}   ·   pnpm trace view ${trace.traceId}${custom}`,
  );
}

/**
 * Put a permission request to the user at the terminal; "always" also writes its rules to the
 * local settings, and says so. Contract: resolves to one of `request.choices`; never rejects.
 */
export async function askTheUser(request: PermissionRequest, context: RunContext): Promise<AskAnswer> {
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

/** What a CLI starts with, read before the shared CLI runs. */
export type PermissionStart =
  /** The options, the rules and the mode, all valid. */
  | { kind: "start"; options: CliOptions; settings: PermissionSettings; mode: PermissionMode }
  /** Something the start cannot go past, in one line: a bad trace id, rule, settings file or mode. */
  | { kind: "error"; message: string }
  /** Bad usage or `--help`: the shared CLI says what is wrong, or prints the help. */
  | { kind: "usage" };

/**
 * Read the options, the rules (settings files, then `--allow` / `--ask` / `--deny`) and the mode,
 * before any model call. `extraOptions` are the chapter's (s05's, or a later chapter's that keeps them).
 * Contract: never throws; a rule or file that is wrong is an `error` naming the file, the line and the rule.
 */
export function readPermissionStart(
  argv: string[],
  io: CliIo,
  extraOptions: ExtraOption[] = S05_OPTIONS,
): PermissionStart {
  const badId = argv.find((arg) => arg.startsWith("--trace=") && !isValidTraceId(arg.slice("--trace=".length)));
  if (badId) return { kind: "error", message: `invalid trace id "${badId.slice(8)}": use letters, digits, . _ -` };
  let options: CliOptions;
  try {
    options = parseCliArgs(argv, { cwd: io.env.INIT_CWD ?? process.cwd() }, extraOptions);
  } catch {
    return { kind: "usage" };
  }
  if (options.help) return { kind: "usage" };
  const rules = (name: keyof CliRules) => options.extra[name] as string[] | undefined;
  const settings = loadPermissionSettings(options.cwd, {
    allow: rules("allow"),
    ask: rules("ask"),
    deny: rules("deny"),
  });
  if (settings instanceof SettingsError) return { kind: "error", message: settings.message };
  const mode = options.extra["permission-mode"] ?? settings.defaultMode;
  if (!isPermissionMode(mode)) {
    return {
      kind: "error",
      message: `--permission-mode: "${mode}" is not a mode; use one of ${PERMISSION_MODES.join(", ")}`,
    };
  }
  return { kind: "start", options, settings, mode };
}

/**
 * Run the CLI on `argv`. The rules and the mode are read first: a bad one is one line on stderr
 * and exit status 1, before any model call.
 */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  const start = readPermissionStart(argv, io);
  if (start.kind === "error") {
    io.stderr.write(`s05: error: ${start.message}\n`);
    return 1;
  }
  // bad usage or --help: the shared CLI says what is wrong, or prints the help
  if (start.kind === "usage") return runChapterCli(permissionsCli(defaultPermissionSettings(), "default"), argv, io);
  return runChapterCli(permissionsCli(start.settings, start.mode), argv, io);
}

if (isProgram(import.meta.filename)) process.exit(await main(process.argv.slice(2)));
