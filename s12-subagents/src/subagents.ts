/**
 * The task tool and the children it starts. A task call (Claude Code's Agent tool: `description`,
 * `prompt`, `subagent_type`) runs a child: this chapter's loop again, on a fresh history whose only
 * message is the prompt, with a system prompt that makes it a subagent, and the parent's tools
 * without `task` (a kind may narrow them). Its final report is the call's result; every other end
 * (its turns or tokens spent, Ctrl-C, a model call that failed) is an `is_error` result that says
 * so, with the child's last text.
 *
 * What binds the parent binds the child: its calls go through the runner the task call came
 * through (s05's gate and s06's hooks), its signal stops when the parent's does, and its tokens are
 * charged to the parent's budget. It cannot go on forever or wide: a turn budget, a token budget,
 * at most `MAX_RUNNING` children at once per agent, and `task` only for a kind that asks for it,
 * never below `MAX_DEPTH`.
 *
 * The task tool is marked `concurrencySafe`, so s02's `runToolCalls` runs a turn's task calls at
 * once (beside its reads; with a write among them, one by one) and answers them in call order, in
 * one message. A child's calls are its own business: two children that edit the same file race,
 * as two people would.
 */
import { randomUUID } from "node:crypto";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import {
  type CallRunner,
  dispatch,
  type Tool,
  type ToolContext,
  type ToolMap,
  toolMap,
} from "@harness/s02-tool-dispatch";
import type { SendTurn } from "@harness/s03-streaming";
import { fanOut } from "@harness/s04-tracing";
import type { LoopHooks } from "@harness/s06-hooks";
import type { AgentLoopResult, Emit, LoopEvent, ToolResult } from "@harness/shared";
import type { AgentLoopOptions } from "./agent-loop.ts";
import { type AgentDefinition, GENERAL_PURPOSE, subagentSystem, TASK } from "./agents/agent-definitions.ts";
import { Slots } from "./children/slots.ts";
import { parseTask, type TaskInput, taskDescription } from "./task/task-input.ts";
import type { TokenBudget } from "./token-budget.ts";

/** Children of one agent running at once; more task calls wait for one to end. */
export const MAX_RUNNING = 3;

/** How deep children go: the main loop's are 1; a child at this depth is never given `task`. */
export const MAX_DEPTH = 2;

/** One child, as its listeners and hooks know it. */
export interface Subagent {
  /** Its own id (a UUID): its transcript's session id, SubagentStop's `agent_id`. */
  id: string;
  /** The id of the task call it runs for: its transcript and trace are named after it. */
  callId: string;
  /** The child that started it; none for a child of the main loop. */
  parent?: Subagent;
  /** Its kind's name. */
  type: string;
  /** The task call's `description`. */
  description: string;
  /** 1 for a child of the main loop, 2 for its child. */
  depth: number;
  /** The model it talks to. */
  model: string;
  /** The text of its last turn that had any, so far. */
  lastText: string;
}

/** A loop that runs a child: this chapter's `agentLoop`. */
export type ChildLoop = (
  send: SendTurn,
  messages: MessageParam[],
  options: AgentLoopOptions,
) => Promise<AgentLoopResult<string>>;

/** What a child gets besides the loop: who hears its events, its hooks, and what ends with it. */
export interface ChildSeams {
  /** Its listeners (its lines under the parent's call, its transcript, its trace). */
  emit?: Emit<{ type: string }>;
  /** Its loop hooks (SubagentStop). */
  hooks?: LoopHooks;
  /** Called once it has ended, every way: close what was opened for it. */
  close?(): void;
}

/** How the children are made. */
export interface SubagentsOptions {
  /** The loop each child runs: this chapter's. */
  loop: ChildLoop;
  /** How a child's turn reaches the model (no context window: its budget keeps its history small). */
  send: SendTurn;
  /** The parent's model: a child's unless its kind names another. */
  model: string;
  cwd: string;
  /** The tools a child may have (the parent's, without `task`); its kind may narrow them. */
  tools: ToolMap;
  /** The kinds `subagent_type` chooses from (`general-purpose` among them). */
  definitions: readonly AgentDefinition[];
  /** Model calls a child may make. */
  maxTurns: number;
  /** Tokens a child may spend, its children's included (`tokensOf`). */
  maxTokens: number;
  /** The budget the children's tokens are charged to (the parent's; the main loop's only counts). */
  budget: TokenBudget;
  /** Milliseconds before a child's bash command is killed. */
  bashTimeoutMs?: number;
  /** A child's listeners and hooks, made as it starts. */
  open?: (agent: Subagent) => ChildSeams;
  /** The depth of the agent whose children these are (0: the main loop). */
  depth?: number;
  /** The child these are the children of, when they are a child's. */
  parent?: Subagent;
}

/** What a task call's handler gets from `around`: the call's id, and the runner every child call goes through. */
export interface TaskContext extends ToolContext {
  task?: { callId: string; runCall: CallRunner };
}

/** The children of one agent: its task tool, and the runner that starts them. */
export class Subagents {
  private readonly slots: Slots = new Slots(MAX_RUNNING);

  constructor(private readonly options: SubagentsOptions) {}

  /** The task tool, its description listing the kinds to choose from. */
  tool(): Tool<TaskInput> {
    return {
      name: TASK,
      description: taskDescription(this.options.definitions, { ...this.options, running: MAX_RUNNING }),
      inputSchema: {
        type: "object",
        properties: {
          description: { type: "string", description: "A short (3-5 word) description of the task" },
          prompt: { type: "string", description: "The task for the subagent to perform" },
          subagent_type: { type: "string", description: "The kind of subagent to use (default general-purpose)" },
        },
        required: ["description", "prompt"],
        additionalProperties: false,
      },
      parse: parseTask,
      concurrencySafe: true, // its children's calls are each gated; task calls run at once
      run: (input, context) => this.run(input, context),
    };
  }

  /**
   * `runCall` for every call but `task`, which goes straight to dispatch (it asks no permission:
   * its child's calls each do), told its call's id and `runCall`, the runner its child's calls go through.
   */
  around(runCall: CallRunner): CallRunner {
    return (tools, call, context) => {
      if (call.name !== TASK) return runCall(tools, call, context);
      const told: TaskContext = { ...context, task: { callId: call.id, runCall } };
      return dispatch(tools, call, told);
    };
  }

  /** Run one task call: wait for a free slot, run the child, and answer with its report. Contract: never throws. */
  async run(input: TaskInput, context: TaskContext): Promise<ToolResult> {
    const { definitions } = this.options;
    const type = input.subagent_type ?? GENERAL_PURPOSE.name;
    const definition = definitions.find((d) => d.name === type);
    if (!definition) {
      const known = definitions.map((d) => d.name).join(", ");
      return taskError("unknown_subagent", `there is no subagent type "${type}". Types: ${known}.`);
    }
    if (!context.task)
      return taskError(
        "not_started",
        "task calls run through Subagents.around, which gives the child its call runner.",
      );
    const release = await this.slots.take(context.signal);
    if (!release) return taskError("interrupted", "the user interrupted before the subagent started.");
    try {
      return await this.runChild(definition, input, context, context.task);
    } finally {
      release();
    }
  }

  private async runChild(
    definition: AgentDefinition,
    input: TaskInput,
    context: ToolContext,
    task: { callId: string; runCall: CallRunner },
  ): Promise<ToolResult> {
    const { options } = this;
    const depth = (options.depth ?? 0) + 1;
    const agent: Subagent = {
      id: randomUUID(),
      callId: task.callId,
      ...(options.parent ? { parent: options.parent } : {}),
      type: definition.name,
      description: input.description,
      depth,
      model: definition.model ?? options.model,
      lastText: "",
    };
    // its own signal: stopped by the parent's, or by its budget
    const stop = new AbortController();
    const interrupt = () => stop.abort();
    context.signal?.addEventListener("abort", interrupt, { once: true });
    if (context.signal?.aborted) stop.abort();
    const budget = options.budget.child(options.maxTokens);
    let spent = false;
    let turns = 0;
    const track = (event: { type: string }) => {
      const heard = event as LoopEvent;
      if (heard.type !== "turn") return;
      turns++;
      if (heard.turn.text.trim() !== "") agent.lastText = heard.turn.text;
    };
    // its tools: the kind's (or all a child may have); task only when the kind asks and there is depth left
    const allowed = definition.tools ?? [...options.tools.keys()];
    const tools = [...options.tools.values()].filter((tool) => allowed.includes(tool.name));
    let runCall = task.runCall;
    if (allowed.includes(TASK) && depth < MAX_DEPTH) {
      const children = new Subagents({ ...options, depth, parent: agent, budget });
      tools.push(children.tool());
      runCall = children.around(task.runCall);
    }
    const seams = options.open?.(agent) ?? {};
    const messages: MessageParam[] = [{ role: "user", content: input.prompt }];
    try {
      const result = await options.loop(options.send, messages, {
        model: agent.model,
        cwd: options.cwd,
        tools: toolMap(tools),
        maxTurns: options.maxTurns,
        bashTimeoutMs: options.bashTimeoutMs,
        system: definition.prompt ?? subagentSystem(options.cwd),
        signal: stop.signal,
        runCall,
        hooks: seams.hooks,
        emit: fanOut(
          budget.watch(() => {
            spent = true;
            stop.abort();
          }),
          track,
          seams.emit,
        ),
      });
      const why = context.signal?.aborted ? "interrupted" : spent ? "spent" : undefined;
      return reportOf(result, agent, why, { budget, maxTokens: options.maxTokens, maxTurns: options.maxTurns });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return taskError(
        "subagent_failed",
        `the subagent's model call failed after ${plural(turns, "turn")}: ${message.split("\n")[0]}${lastWords(agent)}`,
      );
    } finally {
      context.signal?.removeEventListener("abort", interrupt);
      seams.close?.();
    }
  }
}

/** The call's result for how the child ended. */
function reportOf(
  result: AgentLoopResult<string>,
  agent: Subagent,
  why: "interrupted" | "spent" | undefined,
  limits: { budget: TokenBudget; maxTokens: number; maxTurns: number },
): ToolResult {
  const after = `after ${plural(result.turns, "turn")}`;
  if (why === "interrupted")
    return taskError("interrupted", `the user interrupted the subagent ${after}.${lastWords(agent)}`);
  if (why === "spent") {
    const { budget, maxTokens } = limits;
    const whose =
      budget.spent >= maxTokens
        ? `its budget of ${maxTokens.toLocaleString("en-US")}`
        : "the budget of the subagent that started it";
    return taskError(
      "token_budget",
      `the subagent spent ${budget.spent.toLocaleString("en-US")} tokens, which ran out ${whose}, ${after} without a final report.${lastWords(agent)}`,
    );
  }
  switch (result.stopReason) {
    case "final_answer":
      if (result.finalText.trim() !== "") return { content: result.finalText, isError: false };
      return taskError("no_report", `the subagent ended ${after} without a final report.${lastWords(agent)}`);
    case "max_turns":
      return taskError(
        "turn_budget",
        `the subagent used its ${plural(limits.maxTurns, "turn")} without a final report.${lastWords(agent)}`,
      );
    case "max_tokens":
      return taskError("max_tokens", `the subagent's last answer was cut at the output limit.${lastWords(agent)}`);
    default:
      return taskError("subagent_stopped", `the subagent stopped (${result.stopReason}) ${after}.${lastWords(agent)}`);
  }
}

/** An error result in the form of s02's coded errors: `Error [token_budget]: ...`. */
export function taskError(code: string, message: string): ToolResult {
  return { content: `Error [${code}]: ${message}`, isError: true };
}

/** The child's last text, for an error result: the parent may still use it. */
function lastWords(agent: Subagent): string {
  return agent.lastText === "" ? " It said nothing." : ` Its last text:\n${agent.lastText}`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}
