/**
 * s13's command line: s12's, and skills. The skills are found once as the session starts (the
 * project's `.harness/skills`, the user's `~/.harness/skills`); the skill tool joins the tool map,
 * its description listing them; `/NAME` joins the REPL's commands; a loaded skill's allowed-tools
 * join s05's rules until the run ends (the project's once trusted, in the one trust question); a
 * subagent definition may preload skills; compaction restates the skills in use. The loop is
 * s12's: each piece goes in through a seam it has.
 */
import {
  type ChapterCli,
  type CliIo,
  describeError,
  isProgram,
  processIo,
  runChapterCli,
  TerminalView,
} from "@harness/cli";
import { ALL_TOOLS, toolMap } from "@harness/s02-tool-dispatch";
import { fanOut, openTrace, secretsOf, TRACE_FLAGS, type TracedEvent, traceAfterRun } from "@harness/s04-tracing";
import { askPermissionWith, PERMISSION_FLAGS, readPermissions } from "@harness/s05-permissions";
import { HOOK_EVENTS, hookSeams, killRunningHooks, type NoticeEvent, startHooks } from "@harness/s06-hooks";
import { type MessageEvent, openSessionFor, SESSION_FLAGS, sessionAfterRun } from "@harness/s07-sessions";
import {
  boundaryWriter,
  COMPACTION_EXIT_CODES,
  type CompactionStopReason,
  type ContextEvent,
  compactCommand,
  contextLines,
  historyFromBoundary,
  openWindow,
  readWindowSettings,
  WINDOW_FLAGS,
} from "@harness/s08-compaction";
import { connectProvider, PROVIDER_ENVIRONMENT, PROVIDER_FLAGS } from "@harness/s09-providers";
import { CACHE_FLAGS, CacheMeter, cached, cacheLines, readCacheSettings } from "@harness/s10-prompt-caching";
import {
  type ReminderEvent,
  Reminders,
  restatePlan,
  type TodoEvent,
  TodoList,
  todoLines,
  todoWrite,
  todoWriteUngated,
} from "@harness/s11-planning";
import {
  childSeams,
  countChildren,
  definitionsInForce,
  readAgentDefinitions,
  readTaskBudgets,
  Subagents,
  shippedAgents,
  TASK,
  TASK_FLAGS,
  TokenBudget,
} from "@harness/s12-subagents";
import { demoBrain, ScriptedModel } from "@harness/scripted-model";
import type { Emit } from "@harness/shared";
import { agentLoop } from "./agent-loop.ts";
import { readSkills, SKILL_FLAGS, shippedSkills, skillCommands } from "./flags.ts";
import { preloadSkills } from "./preload-skills.ts";
import { restateSkills } from "./restate-skills.ts";
import { Skills } from "./skills.ts";

/** The chapter's CLI: s12's, with skills. */
export const chapter: ChapterCli<CompactionStopReason> = {
  command: "s13",
  summary: "skills: instructions offered by their descriptions, loaded when used (skill, /NAME)",
  flags: [
    ...SKILL_FLAGS,
    ...TASK_FLAGS,
    ...CACHE_FLAGS,
    ...PROVIDER_FLAGS,
    ...TRACE_FLAGS,
    ...PERMISSION_FLAGS,
    ...SESSION_FLAGS,
    ...WINDOW_FLAGS,
  ],
  environment: PROVIDER_ENVIRONMENT,
  interruptible: true,
  exitCodes: COMPACTION_EXIT_CODES,
  commandHelp: [
    "/compact [instructions]  summarise the conversation now; instructions say what to keep",
    "/NAME [args]             use the skill NAME (each skill found is a command)",
  ],
  async start(cli) {
    const { options, io, view, ask, say } = cli;
    const { cwd, maxTurns } = options;
    const terminal = io.stdin.isTTY === true;
    // read before any model call: a bad trace id, rule, settings file, mode or window stops here
    const trace = openTrace(options, io.env);
    const permissions = readPermissions(options);
    const windowSettings = readWindowSettings(options);
    const { contextWindow, compaction } = windowSettings;
    const cache = readCacheSettings(options);
    const budgets = readTaskBudgets(options);
    // the model: the adapter of the wire format chosen, the scripted model speaking it without a key;
    // an OpenAI format keys its own cache by the session (known once the session is open)
    const scripted = () => new ScriptedModel({ brain: demoBrain, contextWindow });
    let sessionId: string | undefined;
    const promptCacheKey = () => (cache.on ? sessionId : undefined);
    const provider = connectProvider(cli, options, { compaction, scripted, promptCacheKey });
    const { adapter, model } = provider;
    // the session, from its last compaction on when it is resumed
    const secrets = secretsOf(io.env);
    const session = await openSessionFor(options, {
      model,
      secrets,
      env: io.env,
      ask: terminal ? ask : undefined,
      say,
    });
    sessionId = session.writer.sessionId;
    const resumed = session.history.length > 0;
    const history = historyFromBoundary(session, say);
    // the listeners: the children's tokens added to the run's result first, then the view, the trace,
    // the transcript (each compaction a boundary), the context's lines, the cache meter, the plan's block
    const context = contextLines((line) => view.note(line));
    const meter = new CacheMeter();
    const cacheLine = cacheLines(meter, (line) => view.note(line), { model, ttl: cache.ttl });
    const children = new TokenBudget(); // the parent's: it counts every child's tokens
    const emit: Emit<TracedEvent | NoticeEvent | MessageEvent | ContextEvent | TodoEvent | ReminderEvent> = fanOut(
      countChildren(children),
      view.show,
      trace?.recorder.record,
      session.writer.record,
      boundaryWriter(session),
      context.show,
      meter.observe,
      todoLines((line) => view.note(line)),
    );
    // the plan: as the session's history left it (a new session's is empty), todo_write in the tool map
    const todos = new TodoList(emit);
    todos.restore(session.history);
    const reminders = new Reminders(todos, emit);
    // the kinds of child: the agent files; the project's apply once trusted, in the hooks' one question
    const childTools = [...ALL_TOOLS.map((tool) => tool.name), TASK];
    const agents = readAgentDefinitions(cwd, childTools, say);
    // the skills: found once; the project's allowed-tools apply once trusted, in the same question
    const found = readSkills(options, say);
    // the hooks: loaded (SubagentStop too), trusted or not, SessionStart told whether the session was resumed
    const notice = (text: string) => emit({ type: "notice", from: "hook", text });
    const started = await startHooks({
      session: { sessionId: session.writer.sessionId, cwd },
      transcriptPath: resumed ? session.writer.path : undefined,
      permissions,
      ask: terminal ? ask : undefined,
      say,
      events: [...HOOK_EVENTS, "SubagentStop"],
      also: [shippedAgents(agents), shippedSkills(found)],
    });
    const skills = new Skills({
      skills: found.skills,
      settings: started.settings, // the rules the gate reads: allowed-tools join them while a skill is active
      projectTrusted: started.trusted.includes("skills"),
    });
    skills.restore(session.history); // a resumed session's skills in use, for compaction to restate
    const baseTools = skills.rootReads(ALL_TOOLS); // a read inside a skill's folder runs there, once the gate allows it
    const askPermission = askPermissionWith(ask, cwd, (line) => view.note(line));
    const { runCall, hooks } = hookSeams(started, { ask: askPermission, notice });
    const bashTimeoutMs = options.bashTimeoutSeconds * 1000;
    // the children: this loop on a fresh history for each task call, sent through the breakpoints
    // (Messages format only) without a window; lines, transcript and trace their own
    const marked = cache.on && adapter.format === "anthropic";
    const send = marked ? cached(adapter.streamTurn, { ttl: cache.ttl }) : adapter.streamTurn;
    const tasks = new Subagents({
      loop: agentLoop,
      send,
      model,
      cwd,
      tools: toolMap(baseTools), // the plan is the parent's: no todo_write
      definitions: preloadSkills(definitionsInForce(agents, started.trusted.includes("agents")), found, {
        cwd,
        say,
      }),
      ...budgets,
      budget: children,
      bashTimeoutMs,
      open: childSeams({
        out: io.stdout,
        makeView: (streams) => new TerminalView(streams, { estimatedTokens: view.estimatedTokens }).show,
        session,
        trace,
        listeners: [meter.observe],
        started,
        notice,
        cwd,
        secrets,
      }),
    });
    // the window: fits each request, and sends it through the breakpoints (Messages format only) to the adapter
    const skill = skills.tool(); // none when no skill is the model's to use
    const tools = toolMap([...baseTools, todoWrite(todos), tasks.tool(), ...(skill ? [skill] : [])]);
    const window = openWindow(windowSettings, {
      send,
      tooLong: adapter.promptTooLong,
      model,
      tools,
      emit: fanOut(restatePlan(todos), restateSkills(skills), emit), // the list and the skills in use restated after a summary
      describeError,
    });
    const listen = fanOut(emit, window.observe, reminders.observe);
    const afterSession = sessionAfterRun(session, say); // repaired if it threw; where it is written
    const afterTrace = traceAfterRun(trace, (line) => view.note(line), cwd, io.env); // where the trace is
    return {
      history,
      run: (history, signal) =>
        agentLoop(window.send, history, {
          model,
          cwd,
          tools,
          maxTurns,
          bashTimeoutMs,
          signal,
          runCall: reminders.around(todoWriteUngated(tasks.around(skills.around(runCall)))), // todo_write, task, skill ask nothing
          hooks,
          window,
          emit: listen,
        }).then(
          (result) => ({ ...result, todos: todos.items }), // the plan in the result (--json)
          async (error: unknown) => {
            throw await provider.describe(error); // an OpenAI format's error names its endpoint
          },
        ),
      afterRun(history, result) {
        skills.endRun(); // the run is over, answered or not: the active skills' allowed-tools leave the rules
        if (result) context.afterRun(); // how full the context is, as the last answer measured it
        if (result) cacheLine.afterRun(); // what the cache read and wrote, and what the session cost
        afterSession(history, result);
        afterTrace(result);
      },
      commands: [compactCommand(window), ...skillCommands(skills, ["compact"])],
      close() {
        session.close();
        killRunningHooks();
      },
    };
  },
};

/** Run the CLI on `argv` and return its exit status. */
export const main = (argv: string[], io: CliIo = processIo()): Promise<number> => runChapterCli(chapter, argv, io);

if (isProgram(import.meta.filename)) {
  process.on("exit", killRunningHooks); // a second Ctrl-C exits at once: no hook is left running
  process.exit(await main(process.argv.slice(2)));
}
