/**
 * s12's options, and what they build: `--task-turns N` and `--task-tokens N`, each child's budgets;
 * the kinds of subagent, read from the agent files (the project's trusted by s05's rule); and each
 * child's seams: its lines under the parent's call (the CLI's view, indented), its transcript and
 * trace beside the parent's, the cache meter, and SubagentStop.
 */
import type { CliOptions, ExtraOption } from "@harness/cli";
import type { OpenTrace } from "@harness/s04-tracing";
import { fanOut } from "@harness/s04-tracing";
import { harnessHome } from "@harness/s05-permissions";
import type { StartedHooks } from "@harness/s06-hooks";
import type { OpenSession } from "@harness/s07-sessions";
import type { Emit } from "@harness/shared";
import { type LoadedDefinitions, loadAgentDefinitions } from "./agents/agent-definitions.ts";
import { openChildTrace, openSidechain } from "./children/sidechain.ts";
import { subagentLines } from "./children/subagent-lines.ts";
import { subagentStop } from "./children/subagent-stop.ts";
import type { ChildSeams, Subagent } from "./subagents.ts";

/** Model calls a child may make, unless `--task-turns` says. */
export const DEFAULT_TASK_TURNS = 12;

/** Tokens a child may spend, unless `--task-tokens` says: one context window's worth. */
export const DEFAULT_TASK_TOKENS = 200_000;

/** Each child's budgets. */
export const TASK_FLAGS: readonly ExtraOption[] = [
  {
    name: "task-turns",
    type: "string",
    help: `--task-turns N      model calls a subagent may make (default ${DEFAULT_TASK_TURNS})`,
  },
  {
    name: "task-tokens",
    type: "string",
    help: `--task-tokens N     tokens a subagent may spend, input and output over all its calls (default ${DEFAULT_TASK_TOKENS})`,
  },
];

/** `--task-turns` and `--task-tokens`, checked. Contract: a bad one throws one line. */
export function readTaskBudgets({ extra }: CliOptions): { maxTurns: number; maxTokens: number } {
  const whole = (name: string, fallback: number) => {
    const raw = extra[name];
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 1) {
      throw new Error(`--${name} expects a whole number of at least 1, got ${JSON.stringify(raw)}`);
    }
    return value;
  };
  return { maxTurns: whole("task-turns", DEFAULT_TASK_TURNS), maxTokens: whole("task-tokens", DEFAULT_TASK_TOKENS) };
}

/**
 * The kinds of subagent written for the project in `cwd` and for the user, each file that is not
 * one said in a line. Which of the project's apply is s05's trust rule's to say (`shippedAgents`).
 */
export function readAgentDefinitions(
  cwd: string,
  tools: readonly string[],
  say: (line: string) => void,
): LoadedDefinitions {
  const loaded = loadAgentDefinitions(cwd, harnessHome(), tools);
  loaded.problems.forEach(say);
  return loaded;
}

/** What each child's seams are made of: the parent's pieces. */
export interface ChildSeamsOptions {
  /** The terminal: each child's lines, indented under its parent's call. */
  out: NodeJS.WritableStream;
  /** Makes a view on streams (the CLI's `TerminalView`'s `show`). */
  makeView: Parameters<typeof subagentLines>[1];
  /** The session: each child's transcript goes beside it. */
  session: Pick<OpenSession, "writer">;
  /** The trace, when there is one: each child's goes beside it. */
  trace?: OpenTrace;
  /** More listeners every child's events go to (the cache meter). */
  listeners: Emit<{ type: string }>[];
  /** The hooks: SubagentStop. */
  started: StartedHooks;
  /** Told each hook's line for the user. */
  notice(line: string): void;
  cwd: string;
  secrets: readonly string[];
}

/** `open` for the children: each child's lines, transcript, trace, listeners and SubagentStop. */
export function childSeams(options: ChildSeamsOptions): (agent: Subagent) => ChildSeams {
  const lines = subagentLines(options.out, options.makeView);
  const { writer } = options.session;
  return (agent) => {
    const view = lines.open(agent);
    const transcript = openSidechain(writer, agent, options);
    const trace = openChildTrace(options.trace, agent, options.secrets);
    const child = { id: agent.id, type: agent.type, transcriptPath: transcript.path, lastText: () => agent.lastText };
    return {
      emit: fanOut(view.show, transcript.record, trace?.record, ...options.listeners),
      hooks: subagentStop(options.started, child, options.notice),
      close() {
        view.close();
        transcript.close();
        trace?.endRun();
      },
    };
  };
}
