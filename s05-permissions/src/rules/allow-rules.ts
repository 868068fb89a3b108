/**
 * The rules that would allow a call that asks: what answering "always" adds, and what a refusal
 * names when no one could be asked ("the rule that would allow it: Bash(npm test)").
 *
 * The rules are as narrow as the call: `Bash(npm test)` for exactly that command, `Edit(/notes.txt)`
 * for exactly that file. They are proved, not guessed: added to the settings, `decide` must then
 * allow the call, and each rule is kept only if the call is not allowed without it. A call no allow
 * rule can let through gets none: one that an ask rule names (deny beats ask beats allow), or a
 * shell line the parser cannot see through (`eval "$X"`).
 */
import { isAbsolute, relative, resolve } from "node:path";
import type { ToolCall } from "@harness/shared";
import { decide } from "../decide.ts";
import type { PermissionMode } from "../permission-mode.ts";
import { splitCommand } from "../shell/split-command.ts";
import type { PermissionSettings, SourcedRule } from "./load-settings.ts";
import { isRuleSyntaxError, MCP_PREFIX, type PermissionRule, parseRule } from "./parse-rule.ts";

/** The source of a rule that an "always" answer added. */
export const SESSION_SOURCE = "this session";

/**
 * The fewest allow rules under which `decide` allows `call`, or `[]` when no allow rule can.
 * Contract: never throws; every rule returned parses, and with all of them added (as allow rules)
 * `decide(call, ...)` is `allow`.
 */
export function allowRulesFor(
  call: ToolCall,
  settings: PermissionSettings,
  mode: PermissionMode,
  cwd: string,
): string[] {
  const candidates: PermissionRule[] = [];
  for (const text of new Set(candidateRules(call, cwd))) {
    const parsed = parseRule(text);
    if (!isRuleSyntaxError(parsed)) candidates.push(parsed);
  }
  const allows = (rules: PermissionRule[]) =>
    decide(call, withAllowRules(settings, rules), mode, cwd).behavior === "allow";
  if (candidates.length === 0 || !allows(candidates)) return [];
  let kept = candidates;
  for (const rule of candidates) {
    const without = kept.filter((r) => r !== rule);
    if (allows(without)) kept = without;
  }
  return kept.map((rule) => rule.text);
}

/** `settings` with `rules` added as allow rules of this session. */
export function withAllowRules(settings: PermissionSettings, rules: readonly PermissionRule[]): PermissionSettings {
  const added: SourcedRule[] = rules.map((rule) => ({ rule, behavior: "allow", source: SESSION_SOURCE }));
  return { ...settings, rules: [...settings.rules, ...added] };
}

/** Exact rules for every part of a call a rule can name: each simple command, each file written. */
function candidateRules(call: ToolCall, cwd: string): string[] {
  const input = call.input ?? {};
  switch (call.name) {
    case "bash": {
      if (typeof input.command !== "string") return [];
      const split = splitCommand(input.command);
      const rules: string[] = [];
      for (const command of split.commands) {
        if (command.allowLayer === null) continue;
        const words = command.layers[command.allowLayer].map((word) => word.value);
        // a word known only at run time, or a * (which a rule reads as a wildcard), has no exact rule
        if (words.some((word) => word === null || word.includes("*"))) continue;
        rules.push(`Bash(${words.join(" ")})`);
      }
      for (const redirect of split.redirects) {
        if (redirect.access === "write" && redirect.target.value) rules.push(editRule(redirect.target.value, cwd));
      }
      return rules;
    }
    case "edit_file":
    case "write_file":
      return typeof input.path === "string" ? [editRule(input.path, cwd)] : [];
    default:
      return call.name.startsWith(MCP_PREFIX) ? [call.name] : []; // an MCP tool (s14): its own name
  }
}

/** `Edit(/path)` for one file, anchored at the working directory (or `//` absolute when outside it). */
function editRule(path: string, cwd: string): string {
  const absolute = resolve(cwd, path);
  const inside = relative(cwd, absolute);
  // gitignore's special characters, escaped so the pattern names this one file
  const escaped = (text: string) => text.replace(/[\\*?[\]]/g, "\\$&");
  if (inside !== "" && !inside.startsWith("..") && !isAbsolute(inside)) return `Edit(/${escaped(inside)})`;
  return `Edit(/${escaped(absolute)})`;
}
