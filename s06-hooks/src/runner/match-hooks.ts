/**
 * Which hooks an event runs. A hook group's `matcher` is read as Claude Code reads it: `*`, empty
 * or absent matches everything; letters, digits, `_` and `|` alone are exact names (`bash`,
 * `edit_file|write_file`); anything else is a regular expression, unanchored and case-sensitive
 * (`^(Edit|Write)$`, `_file$`).
 *
 * Both spellings of a tool name match: the course's (`bash`, `read_file`, `write_file`,
 * `edit_file`, `glob`, `grep`) and Claude Code's (`Bash`, `Read`, `Write`, `Edit`, `Glob`,
 * `Grep`), so a hook group copied from Claude Code's settings fires on the same calls here.
 *
 * What a matcher is tested against: the tool name for PreToolUse and PostToolUse, the `source`
 * for SessionStart, the agent's type for SubagentStop; UserPromptSubmit and Stop ignore matchers, as
 * in Claude Code.
 */
import { CLAUDE_CODE_TOOL_NAMES } from "@harness/s05-permissions";
import type { HookInput } from "./hook-input.ts";
import type { HookCommand } from "./load-hooks.ts";

const EXACT_NAMES = /^[A-Za-z0-9_|]+$/;

/** Why `matcher` cannot be used (an invalid regular expression), or undefined when it can. */
export function matcherProblem(matcher: string): string | undefined {
  if (isMatchAll(matcher) || EXACT_NAMES.test(matcher)) return undefined;
  try {
    new RegExp(matcher);
    return undefined;
  } catch (error) {
    return `the matcher ${JSON.stringify(matcher)} is not a valid regular expression (${(error as Error).message})`;
  }
}

/**
 * True when `matcher` selects `subject`; for a tool name, under either spelling.
 * Contract: never throws (an invalid regular expression matches nothing; loadHooks refuses one).
 */
export function matchesSubject(matcher: string, subject: string): boolean {
  if (isMatchAll(matcher)) return true;
  const names = [subject, ...aliasesOf(subject)];
  if (EXACT_NAMES.test(matcher)) {
    const wanted = matcher.split("|");
    return names.some((name) => wanted.includes(name));
  }
  try {
    const pattern = new RegExp(matcher);
    return names.some((name) => pattern.test(name));
  } catch {
    return false;
  }
}

/** The hooks of `hooks` that this input's event runs, in config order, each command once. */
export function matchHooks(hooks: readonly HookCommand[], input: HookInput): HookCommand[] {
  const subject = subjectOf(input);
  const seen = new Set<string>();
  return hooks.filter((hook) => {
    if (hook.event !== input.hook_event_name) return false;
    if (subject !== undefined && !matchesSubject(hook.matcher, subject)) return false;
    // Claude Code runs an identical command once per event, wherever it is configured
    if (seen.has(hook.command)) return false;
    seen.add(hook.command);
    return true;
  });
}

function subjectOf(input: HookInput): string | undefined {
  switch (input.hook_event_name) {
    case "PreToolUse":
    case "PostToolUse":
      return input.tool_name;
    case "SessionStart":
      return input.source;
    case "SubagentStop":
      return input.agent_type;
    case "UserPromptSubmit": // no matcher: every hook of the event runs
    case "Stop":
      return undefined;
  }
}

function isMatchAll(matcher: string): boolean {
  return matcher === "" || matcher === "*";
}

function aliasesOf(name: string): string[] {
  const names: Readonly<Record<string, string>> = CLAUDE_CODE_TOOL_NAMES;
  const claudeName = names[name];
  if (claudeName) return [claudeName];
  const courseName = Object.keys(names).find((key) => names[key] === name);
  return courseName ? [courseName] : [];
}
