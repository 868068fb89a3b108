/**
 * s06's command line: s05's, plus the user's hooks. The rules and the mode are read as s05 reads
 * them; the hooks are read once at start (`loadHooks`; what cannot be loaded is printed one line
 * each). The project's hooks run only when trusted (`decideTrust`, asked at the terminal before
 * the first prompt). SessionStart runs before the first prompt; the loop runs the rest.
 */

import { type ChapterCli, type CliIo, isProgram, processIo, type RunContext, runChapterCli } from "@harness/cli";
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
import { demoBrain, ScriptedModel } from "@harness/scripted-model";
import { agentLoop } from "./agent-loop.ts";
import type { AgentStopReason } from "./hook-stop-reason.ts";
import { type HookInput, type HookSession, sessionStartInput } from "./runner/hook-input.ts";
import { type LoadedHooks, loadHooks } from "./runner/load-hooks.ts";
import { killRunningHooks } from "./runner/run-hook.ts";
import { runHooks } from "./runner/run-hooks.ts";
import { decideTrust } from "./runner/trust.ts";

/** What a session's hooks start with, decided once, before its first prompt. */
export interface StartedHooks {
  /** Whether the project's hooks may run (`decideTrust`). */
  runProjectHooks: boolean;
  /** What SessionStart hooks printed for the model: sent with the next prompt sent, then emptied. */
  context: string[];
}

/**
 * Once per session, before its first prompt: decide whether the project's hooks run (the user is
 * asked only at a `terminal`; without one, untrusted hooks do not run), then run SessionStart with
 * `start` (`sessionStartInput`). Every line for the user goes to the view.
 * Contract: never rejects for a hook that fails; it runs nothing when no hook is loaded.
 */
export async function startHooks(
  loaded: LoadedHooks,
  start: HookInput,
  context: RunContext,
  terminal: boolean,
): Promise<StartedHooks> {
  if (loaded.hooks.length === 0) return { runProjectHooks: false, context: [] };
  const ask = (question: string) => context.ask(question, ["yes", "no", "always"]);
  const trust = await decideTrust(start.cwd, loaded, { ask: terminal ? ask : undefined });
  if (trust.notice) context.view.note(trust.notice);
  const opening = await runHooks(loaded.hooks, start, { cwd: start.cwd, runProjectHooks: trust.runProjectHooks });
  for (const line of opening.notices) context.view.note(`hook: ${line}`);
  return { runProjectHooks: trust.runProjectHooks, context: opening.context };
}

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
  let session: HookSession | undefined;
  let started: Promise<StartedHooks> | undefined;
  return {
    command: "s06",
    summary: "the user's hooks at the loop's fixed points",
    scriptedModel: () => new ScriptedModel({ brain: demoBrain }),
    interruptible: true,
    exitCodes: { aborted: 130, prompt_blocked: 4 },
    extraOptions: S05_OPTIONS,
    async run(history, context) {
      const { client, model, options, signal, view } = context;
      session ??= { sessionId: crypto.randomUUID(), cwd: options.cwd };
      started ??= startHooks(loaded, sessionStartInput(session), context, terminal);
      const hooks = await started;
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
        runProjectHooks: hooks.runProjectHooks,
        session,
        promptContext: hooks.context,
      });
      return running.then(
        (result) => {
          if (result.stopReason !== "prompt_blocked") hooks.context = []; // read by the model with this prompt
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

if (isProgram(import.meta.filename)) {
  process.on("exit", killRunningHooks); // a second Ctrl-C exits at once: no hook is left running
  process.exit(await main(process.argv.slice(2)));
}
