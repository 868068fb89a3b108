/**
 * s09: the same loop as s08, with one seam. Each turn is sent through a `ProviderAdapter` (its
 * `streamTurn`, handed to s08's keeper) instead of s03's `streamTurn` on an Anthropic client; the
 * request, the history and everything after the turn is read stay as they were, whichever wire
 * format the adapter speaks.
 */
import type { Message, MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { ALL_TOOLS, notRun, runToolCalls, type ToolMap, toApiTool, toolMap } from "@harness/s02-tool-dispatch";
import type { StreamObserver } from "@harness/s03-streaming";
import { RunRecorder, TraceWriter, traceDir } from "@harness/s04-tracing";
import {
  type AskPermission,
  defaultPermissionSettings,
  type PermissionMode,
  type PermissionSettings,
  permissionGate,
} from "@harness/s05-permissions";
import {
  continueAfterStop,
  type HookCommand,
  type HookSession,
  hookGate,
  runHooks,
  stopInput,
  submitPrompt,
} from "@harness/s06-hooks";
import { type Answered, addMessage, type TranscriptWriter } from "@harness/s07-sessions";
import {
  type AgentStopReason,
  type CompactionMode,
  type ContextEvent,
  ContextKeeper,
  writeBoundary,
} from "@harness/s08-compaction";
import {
  type AgentLoopResult,
  AgentTurn,
  addUsage,
  DEFAULT_MAX_TOKENS,
  DEFAULT_MAX_TURNS,
  stopReasonFor,
  type ToolCall,
  type ToolResult,
  toResultBlock,
} from "@harness/shared";
import type { ProviderAdapter } from "./provider-adapter.ts";

/** How one run of the loop is set up. */
export interface AgentLoopOptions {
  /** Model id sent with every request. */
  model: string;
  /** Directory the tools work in; file tools refuse paths outside it. */
  cwd: string;
  /** The tools offered (default: `ALL_TOOLS`, the six of s02). */
  tools?: ToolMap;
  /** Model calls allowed before the loop stops with `max_turns` (default 8). */
  maxTurns?: number;
  /** Output tokens allowed per model call (default 8192). */
  maxTokens?: number;
  /** Milliseconds before a bash command is killed (default 120 000). */
  bashTimeoutMs?: number;
  /** The system prompt (default: a short one naming the working directory). */
  system?: string;
  /** Aborting it stops the request, the stream or the running tools; the loop returns `aborted`. */
  signal?: AbortSignal;
  /** Record into `<traceId>.jsonl` in the project's trace directory (`traceDir(cwd)`). */
  traceId?: string;
  /** Record with this writer instead (a REPL session shares one across its runs). */
  trace?: TraceWriter;
  /** Told about each step, for display; the loop works the same without it. */
  observer?: LoopObserver;
  /** The rules in force (`loadPermissionSettings`); "always" adds to them. Default: the default denies alone. */
  permissions?: PermissionSettings;
  /** What a call no rule names does (default: the settings' `defaultMode`). */
  permissionMode?: PermissionMode;
  /** Asked about each call that asks; without it, the answer is no. */
  ask?: AskPermission;
  /** The hooks loaded at start (`loadHooks`); default: none. */
  hooks?: readonly HookCommand[];
  /** Whether the project's hooks may run (`decideTrust`); local hooks always may. */
  runProjectHooks?: boolean;
  /** The session the hooks are told about (default: a fresh id, this cwd). */
  session?: HookSession;
  /** Text for the model to read with the prompt once UserPromptSubmit lets it through (SessionStart's). */
  promptContext?: readonly string[];
  /** Where each message is written as it joins the history (`openSession`); without it, nowhere. */
  transcript?: TranscriptWriter;
  /** Who keeps the history inside the window: `client` (default), `server` or `off`. */
  compaction?: CompactionMode;
  /** The context window in tokens, overriding the model's (`--context-window`). */
  contextWindow?: number;
}

/** What the loop tells its observer (the CLI prints these): the stream's progress, then the rest. */
export interface LoopObserver extends StreamObserver {
  /** Before each model call; `turnNumber` counts from 1. */
  modelCall?(turnNumber: number): void;
  /** After each model call, with the turn as read from the response. */
  turn?(turn: AgentTurn): void;
  /** Before a tool call runs. */
  toolCall?(call: ToolCall): void;
  /** After a tool call ran, with the result the model will read. */
  toolResult?(call: ToolCall, result: ToolResult): void;
  /** A line from the hooks for the user: a failure, a systemMessage, a blocked prompt, a Stop hook's block. */
  hookNotice?(line: string): void;
  /** The context was measured, cleared or summarised. */
  context?(event: ContextEvent): void;
}

/**
 * Run the loop on `messages` (which end with the user's prompt), its history kept inside the window.
 * Contract: a compaction replaces the history in place with a summary and a tail cut at a turn
 * boundary, a history the API accepts, and writes it to the transcript as a boundary; a call runs
 * only when allowed, every tool_use gets its tool_result, each message is kept as in s07, and each
 * iteration is recorded.
 */
export async function agentLoop(
  adapter: ProviderAdapter,
  messages: MessageParam[],
  options: AgentLoopOptions,
): Promise<AgentLoopResult<AgentStopReason>> {
  const tools = options.tools ?? toolMap(ALL_TOOLS);
  const signal = options.signal ?? new AbortController().signal;
  const maxTurns = options.maxTurns ?? DEFAULT_MAX_TURNS;
  const system = options.system ?? `You are a coding agent working in ${options.cwd}. Use the tools. Be brief.`;
  const observer = options.observer ?? {};
  const trace =
    options.trace ?? (options.traceId ? new TraceWriter(options.traceId, traceDir(options.cwd)) : undefined);
  const recorder = new RunRecorder(trace);
  const permissions = options.permissions ?? defaultPermissionSettings();
  const mode = options.permissionMode ?? permissions.defaultMode;
  const gate = permissionGate({ settings: permissions, mode, ask: options.ask });
  const hooks = options.hooks ?? [];
  const session = options.session ?? { sessionId: crypto.randomUUID(), cwd: options.cwd };
  const runProjectHooks = options.runProjectHooks ?? false;
  const notice = (line: string) => observer.hookNotice?.(line);
  // each call: PreToolUse, s05's gate, PostToolUse
  const checked = hookGate({
    hooks,
    session,
    runProjectHooks,
    settings: permissions,
    mode,
    gate,
    ask: options.ask,
    notice,
  });
  // every message: on disk first, then in the history
  const keep = (message: MessageParam, answered?: Answered) => {
    options.transcript?.append(message, answered);
    addMessage(messages, message);
  };
  let stopHookActive = false; // a Stop hook sent the loop on: it may not do so again
  // measures the context; clears, then summarises, the history (s08's ContextKeeper)
  const keeper = new ContextKeeper({
    send: adapter.streamTurn,
    tooLong: adapter.promptTooLong,
    model: options.model,
    system,
    tools: [...tools.values()].map(toApiTool),
    signal,
    mode: options.compaction,
    contextWindow: options.contextWindow,
    onEvent: (event) => {
      // the history was summarised in place: the transcript gets it as a boundary a resume starts from
      if (event.kind === "compacted" && options.transcript) writeBoundary(options.transcript, messages);
      observer.context?.(event);
    },
  });
  let usage = { inputTokens: 0, outputTokens: 0 };
  let toolCalls = 0;
  let last: AgentTurn | null = null;
  const result = (stopReason: AgentStopReason, turns: number): AgentLoopResult<AgentStopReason> =>
    recorder.finish({
      stopReason,
      turns,
      toolCalls,
      finalText: last?.text ?? "",
      providerStopReason: last?.providerStopReason ?? null,
      usage,
    });

  // UserPromptSubmit: a prompt a hook blocks is taken back, unsent
  const hookOptions = { cwd: options.cwd, signal, runProjectHooks };
  const submitted = await submitPrompt(messages, hooks, { ...hookOptions, session, context: options.promptContext });
  submitted.notices.forEach(notice);
  if (submitted.kind === "blocked") return result("prompt_blocked", 0);
  if (submitted.prompt) options.transcript?.append(submitted.prompt); // in the history already: written as sent

  for (let turns = 1; ; turns++) {
    // inside the window before each call: old results cleared, then the history summarised
    const unfit = await keeper.fit(messages);
    if (unfit) return result(unfit, turns - 1);
    if (signal.aborted) return result("aborted", turns - 1);
    observer.modelCall?.(turns);
    const request = {
      model: options.model,
      max_tokens: options.maxTokens ?? DEFAULT_MAX_TOKENS,
      system,
      tools: [...tools.values()].map(toApiTool),
      messages,
      ...keeper.serverSetting,
    };
    let iteration = recorder.iteration(turns, request);
    let response: Message | null = null;
    for (let compacted = false; ; compacted = true) {
      try {
        response = await iteration.modelCall(keeper.send(request, signal, iteration.observe(observer)));
        break;
      } catch (error) {
        // the API refused the history as too long: compact it once (in place: the request holds
        // the same array) and send it again; refused twice, stop
        if (!keeper.reactsTo(error)) throw error;
        const unsent = compacted ? "context_overflow" : await keeper.compact(messages, "too_long");
        if (unsent) return result(unsent, turns - 1);
        iteration = recorder.iteration(turns, request);
      }
    }
    if (!response) return result("aborted", turns); // the half-streamed turn is dropped
    const turn = AgentTurn.fromResponse(response);
    last = turn;
    usage = addUsage(usage, turn.usage);
    keep({ role: "assistant", content: [...turn.historyContent] }, { model: response.model, usage: turn.usage });
    keeper.measure(response, messages);
    observer.turn?.(turn);

    const stop = stopReasonFor(turn);
    if (stop) {
      // a cut or refused turn runs no tool, but each tool_use still needs its tool_result
      if (turn.toolCalls.length > 0) {
        keep({ role: "user", content: turn.toolCalls.map((call) => toResultBlock(call, notRun(turn))) });
      }
      if (stop === "final_answer" && hooks.length > 0) {
        const verdict = await runHooks(hooks, stopInput(session, stopHookActive), hookOptions);
        verdict.notices.forEach(notice);
        const next = continueAfterStop(verdict, stopHookActive);
        if (next.notice) notice(next.notice);
        if (next.kind === "continue" && !signal.aborted) {
          if (turns >= maxTurns) return result("max_turns", turns); // no room for the one more call
          stopHookActive = true;
          keep({ role: "user", content: next.message });
          continue;
        }
      }
      return result(stop, turns);
    }

    if (turn.toolCalls.length > 0) {
      // reads at once, anything else one by one; the outputs come back in tool_use order
      const context = { cwd: options.cwd, signal, bashTimeoutMs: options.bashTimeoutMs };
      const timed = {
        toolCall: (call: ToolCall) => {
          iteration.toolStarted(call);
          observer.toolCall?.(call);
        },
        toolResult: iteration.toolFinished(observer.toolResult),
      };
      // each call through the permission check: run, refused with why, or asked about
      const outputs = await runToolCalls(tools, turn.toolCalls, context, timed, checked);
      toolCalls += outputs.length;
      // every call answered, in tool_use order, all in ONE user message, even when interrupted
      keep({ role: "user", content: turn.toolCalls.map((call, i) => toResultBlock(call, outputs[i])) });
    }
    if (signal.aborted) return result("aborted", turns);
    // no tool calls and no stop: pause_turn, so the history goes back as it is
    if (turns >= maxTurns) return result("max_turns", turns);
  }
}
