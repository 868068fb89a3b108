/**
 * s14's command line: s13's, and MCP servers. The servers of the project's `.mcp.json` (once
 * trusted, in the one trust question, or approved in your settings.local.json) and of each
 * `--mcp-config` file start together as the session starts, each within `MCP_TIMEOUT`; their tools
 * join the tool map as `mcp__SERVER__TOOL` (behind `tool_search` when they would take over a tenth
 * of the window) and go through the same runner as every call; `/mcp` lists them; every server
 * ends with the session. The loop is s13's, its result blocks able to carry an image.
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
  contextBudgetFor,
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
import {
  preloadSkills,
  readSkills,
  restateSkills,
  SKILL_FLAGS,
  Skills,
  shippedSkills,
  skillCommands,
} from "@harness/s13-skills";
import { demoBrain, ScriptedModel } from "@harness/scripted-model";
import type { Emit } from "@harness/shared";
import { agentLoop } from "./agent-loop.ts";
import { serversToStart, shippedServers } from "./config/approve-servers.ts";
import { MCP_ENVIRONMENT, MCP_FLAGS, readMcpTimeouts, readServers } from "./flags.ts";
import { McpServers } from "./mcp-servers.ts";
import { mcpCommand } from "./repl/mcp-command.ts";
import { offerTools, searchAround, TOOL_SEARCH, TOOL_SEARCH_SHARE, toolSearch } from "./tool-search.ts";
import { killServerGroups } from "./transport/group-stdio-transport.ts";

/** The chapter's CLI: s13's, with MCP servers. */
export const chapter: ChapterCli<CompactionStopReason> = {
  command: "s14",
  summary: "tools from other programs over the Model Context Protocol (.mcp.json, --mcp-config, /mcp)",
  flags: [
    ...MCP_FLAGS,
    ...SKILL_FLAGS,
    ...TASK_FLAGS,
    ...CACHE_FLAGS,
    ...PROVIDER_FLAGS,
    ...TRACE_FLAGS,
    ...PERMISSION_FLAGS,
    ...SESSION_FLAGS,
    ...WINDOW_FLAGS,
  ],
  environment: [...PROVIDER_ENVIRONMENT, ...MCP_ENVIRONMENT],
  interruptible: true,
  exitCodes: COMPACTION_EXIT_CODES,
  commandHelp: [
    "/compact [instructions]  summarise the conversation now; instructions say what to keep",
    "/NAME [args]             use the skill NAME (each skill found is a command)",
    "/mcp                     list the MCP servers, their state and their tools",
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
    const timeouts = readMcpTimeouts(io.env);
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
    // the MCP servers: yours start; the project's once trusted (or approved by your settings.local.json)
    const servers = readServers(options, io.env, say);
    // the hooks: loaded (SubagentStop too), trusted or not, SessionStart told whether the session was resumed
    const notice = (text: string) => emit({ type: "notice", from: "hook", text });
    const started = await startHooks({
      session: { sessionId: session.writer.sessionId, cwd },
      transcriptPath: resumed ? session.writer.path : undefined,
      permissions,
      ask: terminal ? ask : undefined,
      say,
      events: [...HOOK_EVENTS, "SubagentStop"],
      also: [shippedAgents(agents), shippedSkills(found), shippedServers(servers.pending)],
    });
    // every server at once, each within MCP_TIMEOUT; one that does not start is a line, and left out
    const mcp = new McpServers({ env: io.env, ...timeouts, say });
    await mcp.start(serversToStart(servers, started.trusted));
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
    // the servers' tools: sent as they are, or behind tool_search when they would take too much of the window
    const { window: windowTokens } = contextBudgetFor(model, contextWindow); // --context-window, else the model's
    const offered = offerTools(mcp.tools(), windowTokens);
    const tools = new Map(
      toolMap([...baseTools, todoWrite(todos), tasks.tool(), ...(skill ? [skill] : []), ...offered.sent]),
    );
    if (offered.deferred.length > 0) {
      tools.set(TOOL_SEARCH, toolSearch(offered.deferred, tools));
      say(
        `${offered.deferred.length} MCP tools (about ${offered.tokens} tokens, over ${TOOL_SEARCH_SHARE * 100}% of the ${windowTokens}-token window) are found through ${TOOL_SEARCH}`,
      );
    }
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
          // todo_write, task, skill and tool_search ask nothing; a held-back MCP tool is loaded when called
          runCall: reminders.around(
            todoWriteUngated(tasks.around(skills.around(searchAround(offered.deferred, tools, runCall)))),
          ),
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
      commands: [
        compactCommand(window),
        mcpCommand(mcp, (line) => io.stdout.write(`${line}\n`)),
        ...skillCommands(skills, ["compact", "mcp"]),
      ],
      close() {
        session.close();
        killRunningHooks();
        void mcp.close(); // each server's stdin closed and its group sent SIGTERM now; SIGKILL after a grace
      },
    };
  },
};

/** Run the CLI on `argv` and return its exit status. */
export const main = (argv: string[], io: CliIo = processIo()): Promise<number> => runChapterCli(chapter, argv, io);

if (isProgram(import.meta.filename)) {
  // a second Ctrl-C exits at once: no hook and no server is left running
  process.on("exit", () => {
    killRunningHooks();
    killServerGroups();
  });
  process.exit(await main(process.argv.slice(2)));
}
