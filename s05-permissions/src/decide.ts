/**
 * The decision in front of every tool call: deny, ask or allow.
 *
 * Deny beats ask beats allow; where no rule names a call, the mode decides. A call can have several
 * parts, and the strongest part wins: a bash line is as strong as its strongest simple command,
 * redirection, file named or piece the parser cannot see through. `git diff && rm -rf build` is
 * denied when `rm` is, however allowed `git diff` is.
 *
 *     read_file, glob, grep   their path, against Read rules
 *     edit_file               its path, against Edit rules
 *     write_file              its path, against Edit and Write rules
 *     bash                    every simple command against Bash rules; every file a command names
 *                             against Read deny and ask rules (a program may read what it is
 *                             given); `< file` against Read rules; `> file` as an edit of that
 *                             file (Edit and Write rules, and the mode's view of edits)
 *     mcp__SERVER__TOOL       an MCP server's tool (s14): the rules naming its server or it
 *
 * Left out: asking. `ask` is a decision; showing the question and remembering the answer belong
 * to the loop that calls this.
 */
import { isAbsolute, join } from "node:path";
import type { ToolCall } from "@harness/shared";
import { BEHAVIOR_RANK, type Behavior, type Decision } from "./decision.ts";
import { type AccessKind, modeBaseline, type PermissionMode, PLANNING } from "./permission-mode.ts";
import { DEFAULT_SOURCE } from "./rules/default-denies.ts";
import type { PermissionSettings, SourcedRule } from "./rules/load-settings.ts";
import { isEditableInside, pathForms, pathMatches } from "./rules/match-path.ts";
import { MCP_PREFIX } from "./rules/parse-rule.ts";
import { type CourseToolName, EDIT_TOOLS, RULE_TOOLS } from "./rules/rule-tools.ts";
import { commandMatches } from "./shell/match-command.ts";
import { expandWord, namedFiles, type ResolvedPath } from "./shell/named-files.ts";
import type { ShellWord } from "./shell/read-word.ts";
import { splitCommand } from "./shell/split-command.ts";

/** One part of a call, decided: the subject says which part, for the sentence. */
interface Part {
  behavior: Behavior;
  /** What decided: "by rule Bash(rm:*) in .harness/settings.json", or the mode's sentence. */
  by: string;
  /** Which part: "the simple command `rm -rf build`". */
  subject: string;
  rule?: SourcedRule;
  /** Set on a piece the engine cannot prove harmless: no rule can allow it, so its question is the one to put. */
  unseen?: true;
}

/**
 * Decide one tool call under `settings` and `mode`, for tools that work in `cwd`.
 * Contract: never throws and never runs anything; it reads the disk only to resolve symbolic links
 * and expand globs. The same call, settings, mode and disk give the same decision.
 */
export function decide(call: ToolCall, settings: PermissionSettings, mode: PermissionMode, cwd: string): Decision {
  const tool = call.name as CourseToolName;
  const input = call.input ?? {};
  switch (tool) {
    case "bash":
      return decideBash(typeof input.command === "string" ? input.command : null, settings, mode, cwd);
    case "read_file":
    case "glob":
    case "grep":
    case "edit_file":
    case "write_file": {
      const path = typeof input.path === "string" ? input.path : tool === "glob" || tool === "grep" ? "." : null;
      const kind: AccessKind = EDIT_TOOLS.includes(tool) ? "edit" : "read";
      if (path === null) return fromParts([baselinePart(mode, kind, false, `${tool} without a path`)], "");
      return fromParts([decidePathPart(tool, kind, path, settings, mode, cwd, false)], "");
    }
    default: {
      // an MCP server's tool (s14): its rules by server and name, deny beats ask beats allow
      const named = call.name.startsWith(MCP_PREFIX) ? mcpRuleFor(call.name, settings) : undefined;
      if (named) return fromParts([rulePart(named.behavior, named, `the tool ${call.name}`)], "");
      // a tool no rule names: the mode decides, and dispatch answers a name it does not know
      return fromParts([baselinePart(mode, "run", false, `the tool ${call.name}`)], "");
    }
  }
}

/**
 * Decide what `mode` and the rules say about reading or editing one file. The loop can use it to
 * keep a search from reading what a rule denies (grep over `.` would otherwise read `.env`).
 */
export function decidePath(
  access: "read" | "edit",
  path: string,
  settings: PermissionSettings,
  mode: PermissionMode,
  cwd: string,
): Decision {
  const tool: CourseToolName = access === "read" ? "read_file" : "write_file";
  return fromParts([decidePathPart(tool, access, path, settings, mode, cwd, false)], "");
}

function decideBash(command: string | null, settings: PermissionSettings, mode: PermissionMode, cwd: string): Decision {
  if (mode === "plan") return { behavior: "deny", reason: `refused: ${PLANNING}` };
  if (command === null) return fromParts([baselinePart(mode, "run", false, "bash without a command")], "");
  const split = splitCommand(command);
  const parts: Part[] = [];
  const bases = [cwd, ...split.directories.map((dir) => (isAbsolute(dir) ? dir : join(cwd, dir)))];
  const tooWide: string[] = [];

  for (const simple of split.commands) {
    parts.push(commandPart(simple.layers, simple.allowLayer, simple.text, settings, mode));
    // every file a command names may be read by it: Read deny and ask rules see them all
    for (const path of namedFiles(simple.layers, bases, tooWide)) {
      const part = readRulesPart(
        path,
        settings,
        mode,
        cwd,
        `the simple command \`${simple.text}\` names ${path.shown}`,
      );
      if (part) parts.push(part);
    }
  }
  for (const redirect of split.redirects) {
    const subject = `the redirection \`${redirect.text}\``;
    if (redirect.target.value === null) {
      // a file named at run time: no rule can be matched against it
      parts.push(
        baselinePart(
          mode,
          redirect.access === "write" ? "unseen" : "read",
          false,
          `${subject} (its file is named at run time)`,
        ),
      );
      continue;
    }
    for (const path of expandWord(redirect.target, bases, tooWide, false)) {
      if (redirect.access === "read") {
        const part = readRulesPart(path, settings, mode, cwd, subject);
        if (part) parts.push(part);
      } else parts.push(decidePathPart("write_file", "edit", path.path, settings, mode, cwd, true, subject));
    }
  }
  for (const glob of new Set(tooWide)) {
    parts.push(unseenPart(mode, `\`${glob}\`, because the glob is too wide to expand here`));
  }
  for (const unseen of split.unseen) {
    parts.push(unseenPart(mode, `\`${unseen.text}\`, because ${unseen.why}`));
  }
  if (parts.length === 0) return { behavior: "allow", reason: "allowed: the line runs no command" };
  return fromParts(parts, command);
}

/** A simple command against the Bash rules: deny and ask on every layer, allow on its allow layer. */
function commandPart(
  layers: ShellWord[][],
  allowLayer: number | null,
  text: string,
  settings: PermissionSettings,
  mode: PermissionMode,
): Part {
  const subject = `the simple command \`${text}\``;
  const words = layers.map((layer) => layer.map((word) => word.value ?? word.source));
  const bash = (behavior: Behavior) => settings.rules.filter((r) => r.behavior === behavior && r.rule.tool === "Bash");
  const names = (rule: SourcedRule, layer: string[], loose: boolean) =>
    rule.rule.specifier.kind === "any" ||
    (rule.rule.specifier.kind === "command" && commandMatches(rule.rule.specifier, layer, loose));

  for (const rule of bash("deny")) {
    if (words.some((layer) => names(rule, layer, true))) return rulePart("deny", rule, subject);
  }
  if (mode !== "bypassPermissions") {
    for (const rule of bash("ask")) {
      if (words.some((layer) => names(rule, layer, true))) return rulePart("ask", rule, subject);
    }
  }
  // only what it runs is decided (`sh -c '...'`): nothing to allow here
  if (allowLayer === null) return { behavior: "allow", by: "through what it runs", subject };
  for (const rule of bash("allow")) {
    if (names(rule, words[allowLayer], false)) return rulePart("allow", rule, subject);
  }
  return baselinePart(mode, "run", false, subject);
}

/** A read of one file by bash: only deny and ask rules speak (whether the command runs is its own part). */
function readRulesPart(
  path: ResolvedPath,
  settings: PermissionSettings,
  mode: PermissionMode,
  cwd: string,
  subject: string,
): Part | null {
  const rule =
    firstPathRule(settings, "deny", "read_file", path.forms, cwd) ??
    (mode === "bypassPermissions" ? undefined : firstPathRule(settings, "ask", "read_file", path.forms, cwd));
  return rule ? rulePart(rule.behavior, rule, subject) : null;
}

/** A file tool's path (or a redirection's file) against the rules, then the mode. */
function decidePathPart(
  tool: CourseToolName,
  kind: "read" | "edit",
  path: string,
  settings: PermissionSettings,
  mode: PermissionMode,
  cwd: string,
  fromShell: boolean,
  subject = `${tool} of ${path}`,
): Part {
  const forms = pathForms(path, cwd);
  // a shell redirection writes a whole file: Write rules and Edit rules both name it
  const tools: CourseToolName[] = fromShell ? ["write_file", "edit_file"] : [tool];
  const find = (behavior: Behavior) => {
    for (const each of tools) {
      const rule = firstPathRule(settings, behavior, each, forms, cwd);
      if (rule) return rule;
    }
    return undefined;
  };
  const denied = find("deny");
  if (denied) return rulePart("deny", denied, subject);
  if (mode === "plan" && kind === "edit") return { behavior: "deny", by: PLANNING, subject };
  const asked = mode === "bypassPermissions" ? undefined : find("ask");
  if (asked) return rulePart("ask", asked, subject);
  const allowed = find("allow");
  if (allowed) return rulePart("allow", allowed, subject);
  return baselinePart(mode, kind, isEditableInside(forms, cwd), subject);
}

/** The strongest rule naming the MCP tool `name` (`mcp__SERVER__TOOL`): its server's, or its own. */
function mcpRuleFor(name: string, settings: PermissionSettings): SourcedRule | undefined {
  const names = (r: SourcedRule) =>
    r.rule.specifier.kind === "mcp" &&
    (name === `${MCP_PREFIX}${r.rule.specifier.server}` ||
      (name.startsWith(`${MCP_PREFIX}${r.rule.specifier.server}__`) &&
        (r.rule.specifier.tool === undefined ||
          name === `${MCP_PREFIX}${r.rule.specifier.server}__${r.rule.specifier.tool}`)));
  for (const behavior of ["deny", "ask", "allow"] as const) {
    const rule = settings.rules.find((r) => r.behavior === behavior && names(r));
    if (rule) return rule;
  }
  return undefined;
}

/** The first rule of `behavior` that covers `tool` and names one of `forms`. */
function firstPathRule(
  settings: PermissionSettings,
  behavior: Behavior,
  tool: CourseToolName,
  forms: string[],
  cwd: string,
): SourcedRule | undefined {
  return settings.rules.find(
    (r) =>
      r.behavior === behavior &&
      r.rule.tool !== "mcp" &&
      RULE_TOOLS[r.rule.tool].includes(tool) &&
      r.rule.tool !== "Bash" &&
      (r.rule.specifier.kind === "any" ||
        (r.rule.specifier.kind === "path" && pathMatches(r.rule.specifier, forms, cwd, behavior !== "allow"))),
  );
}

function rulePart(behavior: Behavior, rule: SourcedRule, subject: string): Part {
  const from =
    rule.source === DEFAULT_SOURCE
      ? `the default rule ${rule.rule.text} (secrets and the harness's own files stay out of reach)`
      : `rule ${rule.rule.text} ${rule.source.startsWith("--") ? "from" : "in"} ${rule.source}`;
  return { behavior, by: `by ${from}`, subject, rule };
}

function baselinePart(mode: PermissionMode, kind: AccessKind, insideCwd: boolean, subject: string): Part {
  const baseline = modeBaseline(mode, kind, insideCwd);
  return { behavior: baseline.behavior, by: baseline.reason, subject };
}

/** A piece of a line the engine cannot prove harmless: it asks in every mode but plan. */
function unseenPart(mode: PermissionMode, subject: string): Part {
  return { ...baselinePart(mode, "unseen", false, subject), unseen: true };
}

const VERB: Record<Behavior, string> = { allow: "allowed", ask: "asks", deny: "denied" };

/**
 * The strongest part decides; its sentence names the part, and the line when there is more to it.
 * Of parts that ask, one the engine cannot prove is named first: no rule can let it through.
 */
function fromParts(parts: Part[], line: string): Decision {
  let strongest = parts[0];
  for (const part of parts) {
    const rank = BEHAVIOR_RANK[part.behavior] - BEHAVIOR_RANK[strongest.behavior];
    if (rank > 0 || (rank === 0 && part.unseen && !strongest.unseen)) strongest = part;
  }
  const inLine = line !== "" && !strongest.subject.includes(`\`${line.trim()}\``) ? ` in \`${clip(line)}\`` : "";
  let reason: string;
  if (strongest.behavior === "allow" && parts.length > 1) {
    const each = parts.map((part) => `${part.subject} ${part.by}`);
    const shown = each.slice(0, 3).join("; ") + (each.length > 3 ? `; and ${each.length - 3} more` : "");
    reason = `allowed: every part of \`${clip(line)}\` is allowed (${shown})`;
  } else if (strongest.rule) {
    reason = `${VERB[strongest.behavior]} ${strongest.by}: ${strongest.subject}${inLine}`;
  } else if (strongest.by === PLANNING) {
    reason = `refused: ${PLANNING} (${strongest.subject}${inLine})`;
  } else {
    reason = `${VERB[strongest.behavior]} (${strongest.by}): ${strongest.subject}${inLine}`;
  }
  const decision: Decision = { behavior: strongest.behavior, reason };
  if (strongest.rule) {
    decision.rule = strongest.rule.rule.text;
    decision.source = strongest.rule.source;
  }
  return decision;
}

function clip(text: string): string {
  // cut first: a regular expression over a 50,000-character line of spaces takes seconds
  const trimmed = text.trim();
  const flat = trimmed.slice(0, 400).replace(/\s*\n\s*/g, " ⏎ ");
  return flat.length > 160 || trimmed.length > 400 ? `${flat.slice(0, 157)}...` : flat;
}
