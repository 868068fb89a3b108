/**
 * s06's command line: s05's, plus the user's hooks. The rules and the mode are read as s05 reads
 * them; the hooks are read once at start (`loadHooks`; what cannot be loaded is printed one line
 * each). The project's hooks run only when trusted (`decideTrust`, asked at the terminal before
 * the first prompt). SessionStart runs before the first prompt; the loop runs the rest.
 */
import { realpathSync } from "node:fs";
import { terminalObserver } from "@harness/s03-streaming";
import { newTraceId, TraceWriter, traceDir } from "@harness/s04-tracing";
import {
  askTheUser,
  defaultPermissionSettings,
  type PermissionMode,
  type PermissionSettings,
  readPermissionStart,
  S05_OPTIONS,
  sayWhereTheTraceIs,
} from "@harness/s05-permissions";
import { type ChapterCli, type CliIo, type RunContext, runChapterCli } from "@harness/shared";
import { agentLoop } from "./agent-loop.ts";
import type { AgentStopReason } from "./agent-stop-reason.ts";
import { type HookSession, sessionStartInput } from "./hook-input.ts";
import { type LoadedHooks, loadHooks } from "./load-hooks.ts";
import { killRunningHooks } from "./run-hook.ts";
import { runHooks } from "./run-hooks.ts";
import { decideTrust } from "./trust.ts";

/**
 * The chapter's CLI, with the rules read, the mode chosen and the hooks loaded. `terminal`: whether
 * the user can be asked to trust the project's hooks (without one, untrusted hooks do not run).
 */
export function hooksCli(
  settings: PermissionSettings,
  mode: PermissionMode,
  loaded: LoadedHooks,
  terminal: boolean,
): ChapterCli<AgentStopReason> {
  let trace: TraceWriter | undefined;
  let started: Promise<{ session: HookSession; runProjectHooks: boolean }> | undefined;
  let startContext: string[] = []; // what SessionStart hooks printed, for the model with the next prompt sent
  // once per session, before the first prompt: trust, then SessionStart
  const start = async (context: RunContext) => {
    const session = { sessionId: crypto.randomUUID(), cwd: context.options.cwd };
    if (loaded.hooks.length === 0) return { session, runProjectHooks: false };
    const ask = (question: string) => context.ask(question, ["yes", "no", "always"]);
    const trust = await decideTrust(context.options.cwd, loaded, { ask: terminal ? ask : undefined });
    if (trust.notice) context.view.note(trust.notice);
    const opening = await runHooks(loaded.hooks, sessionStartInput(session), {
      cwd: session.cwd,
      runProjectHooks: trust.runProjectHooks,
    });
    for (const line of opening.notices) context.view.note(`hook: ${line}`);
    startContext = opening.context;
    return { session, runProjectHooks: trust.runProjectHooks };
  };
  return {
    command: "s06",
    summary: "the user's hooks at the loop's fixed points",
    interruptible: true,
    exitCodes: { aborted: 130, prompt_blocked: 4 },
    extraOptions: S05_OPTIONS,
    async run(history, context) {
      const { client, model, options, signal, view } = context;
      started ??= start(context);
      const { session, runProjectHooks } = await started;
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
        observer: { ...terminalObserver(view), hookNotice: (line: string) => view.note(`hook: ${line}`) },
        permissions: settings, // the same object for every prompt: "always" holds for the session
        permissionMode: mode,
        ask: (request) => askTheUser(request, context),
        hooks: loaded.hooks,
        runProjectHooks,
        session,
        promptContext: startContext,
      });
      return running.then(
        (result) => {
          if (result.stopReason !== "prompt_blocked") startContext = []; // read by the model with this prompt
          return result;
        },
        (error) => {
          sayWhereTheTraceIs(trace, context);
          throw error;
        },
      );
    },
    afterRun: (_result, context) => sayWhereTheTraceIs(trace, context),
  };
}

/**
 * Run the CLI on `argv`. The rules and the mode are read first, as s05 reads them: a bad one is
 * one line on stderr and exit status 1, before any model call. The hooks are loaded then too;
 * what cannot be loaded is printed one line each, and the rest run.
 */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  const start = readPermissionStart(argv, io);
  if (start.kind === "error") {
    io.stderr.write(`s06: error: ${start.message}\n`);
    return 1;
  }
  // bad usage or --help: the shared CLI says what is wrong, or prints the help
  if (start.kind === "usage") {
    const none: LoadedHooks = { hooks: [], problems: [], projectDefinitions: [] };
    return runChapterCli(hooksCli(defaultPermissionSettings(), "default", none, false), argv, io);
  }
  const loaded = loadHooks(start.options.cwd);
  for (const problem of loaded.problems) io.stderr.write(`s06: hooks: ${problem}\n`);
  return runChapterCli(hooksCli(start.settings, start.mode, loaded, io.stdin.isTTY === true), argv, io);
}

function processIo(): CliIo {
  return { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env };
}

/** True when this file is the program node runs (`pnpm s06`), not a module a test imports. */
function isProgram(): boolean {
  try {
    return process.argv[1] !== undefined && realpathSync(process.argv[1]) === realpathSync(import.meta.filename);
  } catch {
    return false;
  }
}

if (isProgram()) {
  process.on("exit", killRunningHooks); // a second Ctrl-C exits at once: no hook is left running
  process.exit(await main(process.argv.slice(2)));
}
