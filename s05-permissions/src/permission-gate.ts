/**
 * The permission check in front of every tool call, as a `CallRunner` for s02's `runToolCalls`:
 * decide, then run the call, refuse it, or ask the user and do what they answer.
 *
 *     allow   run it (glob and grep pass by every file a rule keeps them from reading)
 *     deny    answer it with `Error [denied]: <why>`; nothing runs
 *     ask     put the question; yes runs it, always runs it and allows its like for the session,
 *             no answers it with `Error [not_approved]: <why>` and the rule that would allow it
 *
 * A refused call is a tool result like any other, `is_error` set: the model reads why and goes on,
 * and the loop's promise holds (every tool_use gets exactly one tool_result). The calls of one
 * batch are decided one by one; a refused call does not stop the others. Questions are put one at
 * a time, even for calls that run at once.
 */
import { type CallRunner, codedError, dispatch, type ToolMap } from "@harness/s02-tool-dispatch";
import type { ToolCall, ToolResult } from "@harness/shared";
import { decide, decidePath } from "./decide.ts";
import type { Decision } from "./decision.ts";
import type { PermissionMode } from "./permission-mode.ts";
import { allowRulesFor, withAllowRules } from "./rules/allow-rules.ts";
import type { PermissionSettings } from "./rules/load-settings.ts";
import { isRuleSyntaxError, type PermissionRule, parseRule } from "./rules/parse-rule.ts";
import { shellParserReady } from "./shell/bash-parser.ts";

/** What the user can answer a permission question: yes, no, or always (allow its like from now on). */
export type PermissionAnswer = "yes" | "no" | "always";

/** Why a call was refused: a rule or the mode denied it, or it asked and the answer was no. */
export type RefusalCode = "denied" | "not_approved";

/** A call that asks, put to the user. */
export interface PermissionRequest {
  call: ToolCall;
  decision: Decision;
  /** The question, on one line: what asks, and why. */
  question: string;
  /** The answers offered: yes and no, and always when a rule can allow the call. */
  choices: PermissionAnswer[];
  /** The allow rules an "always" answer adds (none when no allow rule can let the call through). */
  rules: string[];
}

/** Puts a request to the user. Contract: resolves to one of `request.choices`; never rejects. */
export type AskPermission = (request: PermissionRequest) => Promise<PermissionAnswer>;

/** What the check needs: the rules, the mode, and someone to ask. */
export interface PermissionGateOptions {
  /** The rules in force. An "always" answer adds its rules here, so they hold while this object lives. */
  settings: PermissionSettings;
  mode: PermissionMode;
  /** Asked about each call that asks; without it, the answer is no. */
  ask?: AskPermission;
  /** Runs a call that may run (default: s02's `dispatch`). */
  run?: CallRunner;
}

/**
 * The runner that puts the permission check in front of `options.run`.
 * Contract: never throws; a call that is not allowed never reaches `options.run`; a call that
 * cannot run anyway (an unknown tool, input that fails its schema) goes to `options.run` without a
 * question, to be answered with its error.
 */
export function permissionGate(options: PermissionGateOptions): CallRunner {
  const { settings, mode } = options;
  const run = options.run ?? dispatch;
  let questions: Promise<unknown> = Promise.resolve(); // one question at a time

  return async (tools, call, context) => {
    // a search reads only what a Read rule lets it: grep over . must not read .env
    const canRead = (path: string) => decidePath("read", path, settings, mode, context.cwd).behavior === "allow";
    const allowed = () => run(tools, call, { ...context, canRead });
    if (!canRun(tools, call)) return allowed();

    await shellParserReady();
    const decision = decide(call, settings, mode, context.cwd);
    if (decision.behavior === "allow") return allowed();
    if (decision.behavior === "deny") return refusal("denied", decision.reason);

    const asked = questions.then(() => askAbout(call, options, context.cwd));
    questions = asked.catch(() => undefined);
    const { answer, decision: asking, rules } = await asked;
    if (answer === "yes" || answer === "always") return allowed();
    if (context.signal?.aborted) return codedError("interrupted", "the user interrupted before this call ran.");
    const answered = options.ask ? "the answer was no" : "there was no one to ask";
    const rule = rules.length > 0 ? ` The rule that would allow it: ${rules.join(", ")}.` : "";
    return refusal("not_approved", `${whatAsks(asking)}, and ${answered}, so nothing ran.${rule}`);
  };
}

/** The answer about one call, decided again first: an "always" given meanwhile may allow it now. */
async function askAbout(
  call: ToolCall,
  options: PermissionGateOptions,
  cwd: string,
): Promise<{ answer: PermissionAnswer; decision: Decision; rules: string[] }> {
  const { settings, mode } = options;
  const decision = decide(call, settings, mode, cwd);
  if (decision.behavior !== "ask") return { answer: decision.behavior === "allow" ? "yes" : "no", decision, rules: [] };
  const rules = allowRulesFor(call, settings, mode, cwd);
  const choices: PermissionAnswer[] = rules.length > 0 ? ["yes", "no", "always"] : ["yes", "no"];
  const always = rules.length > 0 ? ` (always allows ${rules.join(", ")})` : "";
  const question = `${whatAsks(decision)}. Run it?${always}`;
  const answer = options.ask
    ? await options.ask({ call, decision, question, choices, rules }).catch((): PermissionAnswer => "no")
    : "no";
  if (answer === "always") {
    const parsed = rules.map(parseRule).filter((rule): rule is PermissionRule => !isRuleSyntaxError(rule));
    settings.rules = withAllowRules(settings, parsed).rules;
  }
  return { answer, decision, rules };
}

/**
 * A decision to ask, said with its subject first: "the simple command `rm -rf build` asks (in
 * default mode a command asks)" for the reason "asks (in default mode a command asks): the simple
 * command `rm -rf build`".
 */
export function whatAsks(decision: Decision): string {
  const [, by, subject] = /^asks (\([^)]*\)|by .*?): ([\s\S]+)$/.exec(decision.reason) ?? [];
  return subject ? `${subject} asks ${by}` : decision.reason;
}

/** False when dispatch would answer the call with an error before running anything. */
function canRun(tools: ToolMap, call: ToolCall): boolean {
  const tool = tools.get(call.name);
  if (!tool || call.inputError) return false;
  try {
    return tool.parse(call.input).ok;
  } catch {
    return false;
  }
}

/** A refused call's result: `Error [denied]: ...`, the form of s02's coded errors. */
export function refusal(code: RefusalCode, message: string): ToolResult {
  return { content: `Error [${code}]: ${message}`, isError: true };
}
