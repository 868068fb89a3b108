/** s14: s13's loop, one import changed: a tool result may carry images (an MCP server's), so its block comes from s14's `toResultBlock`; main.ts hands the servers' tools to the map and tool search to the runner. */
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import type { CallRunner } from "@harness/s02-tool-dispatch";
import { ALL_TOOLS, notRun, runToolCalls, type ToolMap, toApiTool, toolMap } from "@harness/s02-tool-dispatch";
import type { AbortableStopReason, SendTurn, StreamEvent } from "@harness/s03-streaming";
import type { ModelErrorEvent } from "@harness/s04-tracing";
import { type LoopHooks, lastPrompt } from "@harness/s06-hooks";
import type { AnsweredBy, MessageEvent } from "@harness/s07-sessions";
import { ContextOverflow, type ContextWindow } from "@harness/s08-compaction";
import {
  type AgentLoopResult,
  AgentTurn,
  appendAssistantTurn,
  appendUserText,
  DEFAULT_MAX_TOKENS,
  DEFAULT_MAX_TURNS,
  type Emit,
  type LoopEvent,
  runTally,
  stopReasonFor,
} from "@harness/shared";
import { toResultBlock } from "./content/mcp-result.ts";

/** How one run of the loop is set up. */
export interface AgentLoopOptions {
  /** Model id sent with every request. */
  model: string;
  /** Directory the tools work in. */
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
  /** Told what happens, as it happens (the terminal view listens); the loop works the same without it. */
  emit?: Emit<LoopEvent | StreamEvent | ModelErrorEvent | MessageEvent>;
  /** Aborting it stops the request, the stream or the running tools; the loop returns `aborted`. */
  signal?: AbortSignal;
  /** Runs each tool call (default: s02's `dispatch`); main.ts hands in the permission gate. */
  runCall?: CallRunner;
  /** The hooks before the prompt is sent and before an answer stands (main.ts builds them: `loopHooks`). */
  hooks?: LoopHooks;
  /** Keeps each request inside the context window (main.ts builds it, and sends through its `send`). */
  window?: ContextWindow;
}

/**
 * Run the loop on `messages` (which end with the user's prompt) until the model answers, a turn
 * is cut short, or the turn budget is spent. The history is extended in place.
 * Contract: on every return, each tool_use in `messages` has its tool_result. An API error
 * (after the SDK's retries) is thrown, with the history left as it was before that call.
 * Every run ends with an event: `end` when it returns, `model_error` before an error is thrown.
 * A prompt a hook blocks is taken back unsent (`prompt_blocked`); a Stop hook may send the run on once.
 * Each message is told (`message`) before it joins the history; the prompt once a hook lets it through.
 * A history that cannot be made to fit the window ends the run with `context_overflow`.
 */
export async function agentLoop(
  send: SendTurn,
  messages: MessageParam[],
  options: AgentLoopOptions,
): Promise<AgentLoopResult<AbortableStopReason | "prompt_blocked" | "context_overflow">> {
  const tools = options.tools ?? toolMap(ALL_TOOLS);
  const maxTurns = options.maxTurns ?? DEFAULT_MAX_TURNS;
  const system = options.system ?? `You are a coding agent working in ${options.cwd}. Use the tools. Be brief.`;
  const emit = options.emit ?? (() => {});
  const tally = runTally(emit); // usage, tool calls, the last turn: what the result is made of
  const signal = options.signal ?? new AbortController().signal;
  // each message is told to the listeners (a transcript writes it) before it joins the history
  const told = <M extends MessageParam>(message: M, answered?: AnsweredBy): M => {
    emit({ type: "message", message, ...answered });
    return message;
  };
  const submitted = await options.hooks?.submitPrompt(messages, signal); // UserPromptSubmit: a block takes it back
  if (submitted?.kind === "blocked") return tally.end("prompt_blocked", 0);
  const prompt = submitted ? submitted.prompt : lastPrompt(messages); // as sent, the hooks' context with it
  if (prompt) told(prompt); // in the history already: told as sent

  for (let turns = 1; ; turns++) {
    if (signal.aborted) return tally.end("aborted", turns - 1);
    const request = {
      model: options.model,
      max_tokens: options.maxTokens ?? DEFAULT_MAX_TOKENS,
      system,
      tools: [...tools.values()].map(toApiTool),
      messages,
    };
    const unfit = await options.window?.fit(request, signal); // old results cleared, then the history summarised
    if (unfit) return tally.end(unfit, turns - 1);
    emit({ type: "model_call", turnNumber: turns, request });
    const response = await send(request, signal, emit).catch((error: unknown) => {
      if (error instanceof ContextOverflow) return error; // refused as too long, and still too long summarised
      emit({ type: "model_error", error }); // a run that fails is the one you will want to read
      throw error;
    });
    if (response instanceof ContextOverflow) return tally.end("context_overflow", turns - 1);
    if (!response) return tally.end("aborted", turns); // the half-streamed turn is dropped
    const turn = AgentTurn.fromResponse(response);
    tally.turn(turn);
    told({ role: "assistant", content: [...turn.historyContent] }, { model: response.model, usage: turn.usage });
    appendAssistantTurn(messages, turn);
    emit({ type: "turn", turn, response });

    const stop = stopReasonFor(turn);
    if (stop) {
      // a cut or refused turn runs no tool, but each tool_use still needs its tool_result
      if (turn.toolCalls.length > 0) {
        messages.push(told({ role: "user", content: turn.toolCalls.map((call) => toResultBlock(call, notRun(turn))) }));
      }
      const more = stop === "final_answer" ? await options.hooks?.stop(signal) : undefined; // Stop: go on, once?
      if (more && turns >= maxTurns) return tally.end("max_turns", turns); // no room for the one more call
      if (more) {
        appendUserText(messages, told({ role: "user", content: more }).content);
        continue;
      }
      return tally.end(stop, turns);
    }

    if (turn.toolCalls.length > 0) {
      const context = { cwd: options.cwd, signal, bashTimeoutMs: options.bashTimeoutMs }; // reads at once, the rest one by one
      const outputs = await runToolCalls(tools, turn.toolCalls, context, emit, options.runCall);
      tally.ran(outputs.length);
      // every call answered, in tool_use order, all in ONE user message
      messages.push(told({ role: "user", content: turn.toolCalls.map((call, i) => toResultBlock(call, outputs[i])) }));
    }
    if (signal.aborted) return tally.end("aborted", turns);
    // no tool calls and no stop: pause_turn, so the history goes back as it is
    if (turns >= maxTurns) return tally.end("max_turns", turns);
  }
}
