/**
 * The task tool's two faces for the model: what it sends (Claude Code's Agent tool's fields, checked
 * before anything runs: a bad call is s02's `invalid_arguments` error), and what it reads (the
 * tool's description: what a subagent is for, its limits, and each kind to choose from).
 */
import type { AgentDefinition } from "../agents/agent-definitions.ts";

/** What the model sends: Claude Code's Agent tool's fields. */
export interface TaskInput {
  /** A few words on the task (shown to the user). */
  description: string;
  /** The whole task: the child reads this and nothing else of the conversation. */
  prompt: string;
  /** Which kind of subagent (default `general-purpose`). */
  subagent_type?: string;
}

/** The tool's description: what it is for, its limits, and each kind with when to use it. */
export function taskDescription(
  definitions: readonly AgentDefinition[],
  limits: { maxTurns: number; maxTokens: number; running: number },
): string {
  const kinds = definitions.map((d) => {
    const tools = d.tools ? ` (tools: ${d.tools.join(", ") || "none"})` : "";
    return `- ${d.name}: ${d.description}${tools}`;
  });
  return [
    "Hand a task to a subagent: a fresh copy of this agent that works on its own and returns one final report.",
    "Use it for work whose steps you do not need to see (a search over many files, a review): only the report comes back into this conversation.",
    "The subagent sees none of this conversation: put everything it needs in the prompt, and say what the report should hold.",
    `Several task calls in one message run at the same time (${limits.running} at once).`,
    `Each subagent has ${limits.maxTurns} turns and ${limits.maxTokens.toLocaleString("en-US")} tokens; one that runs out returns an error with its last text.`,
    "Subagent types (subagent_type):",
    ...kinds,
  ].join("\n");
}

/** Check a task call's input: two non-empty strings, and a type when given. */
export function parseTask(input: unknown): { ok: true; value: TaskInput } | { ok: false; error: string } {
  if (input === null || typeof input !== "object" || Array.isArray(input))
    return { ok: false, error: "input: expected an object" };
  const { description, prompt, subagent_type: type, ...rest } = input as Record<string, unknown>;
  const extra = Object.keys(rest);
  if (extra.length > 0)
    return { ok: false, error: `unknown field${extra.length === 1 ? "" : "s"}: ${extra.join(", ")}` };
  if (typeof description !== "string" || description.trim() === "")
    return { ok: false, error: "description: a few words are needed" };
  if (typeof prompt !== "string" || prompt.trim() === "") return { ok: false, error: "prompt: the task is needed" };
  if (type !== undefined && typeof type !== "string") return { ok: false, error: "subagent_type: expected a name" };
  return { ok: true, value: { description, prompt, ...(type === undefined ? {} : { subagent_type: type }) } };
}
