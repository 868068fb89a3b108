/**
 * The rules in force, read once at start from the project the tools work in:
 *
 *     .harness/settings.json         the project's, committed
 *     .harness/settings.local.json   yours, ignored by git
 *     --allow RULE / --ask RULE / --deny RULE on the command line
 *
 * in Claude Code's shape: `{"permissions": {"allow": [...], "ask": [...], "deny": [...],
 * "defaultMode": "..."}}`. Rules from every source add up; `defaultMode` from the local file wins
 * over the project's. A file that does not parse, a key that is not known, or a rule that does not
 * parse is a `SettingsError` naming the file, the line and the rule, before anything runs.
 *
 * Two settings are honoured only in the local file: `"disableDefaultDenies": true` and
 * `"defaultMode": "bypassPermissions"`. A repository someone clones carries its own
 * `.harness/settings.json`; it must not be able to switch off the protection of their secrets or
 * every prompt. Left out: user-wide and managed settings (`~/.claude`, `/etc`), which Claude Code
 * also reads.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { findNodeAtLocation, type Node, type ParseError, parseTree, printParseErrorCode } from "jsonc-parser";
import { z } from "zod";
import type { Behavior } from "../decision.ts";
import { PERMISSION_MODES, type PermissionMode } from "../permission-mode.ts";
import { DEFAULT_DENY_RULES, DEFAULT_SOURCE, DISABLE_DEFAULT_DENIES } from "./default-denies.ts";
import { isRuleSyntaxError, type PermissionRule, parseRule } from "./parse-rule.ts";
import { SettingsError } from "./settings-error.ts";

/** The project's settings file, relative to the working directory. */
export const PROJECT_SETTINGS = ".harness/settings.json";
/** The personal settings file, relative to the working directory. */
export const LOCAL_SETTINGS = ".harness/settings.local.json";

/** A rule and where it came from. */
export interface SourcedRule {
  rule: PermissionRule;
  behavior: Behavior;
  /** `.harness/settings.json`, `.harness/settings.local.json`, `--allow`, `--ask`, `--deny` or `default`. */
  source: string;
}

/** Rules given on the command line. */
export interface CliRules {
  allow?: readonly string[];
  ask?: readonly string[];
  deny?: readonly string[];
}

/** Everything `decide` needs from the settings. */
export interface PermissionSettings {
  /** Every rule in force, the default denies included unless switched off. */
  rules: readonly SourcedRule[];
  /** The mode the settings ask for (`default` when none does); a `--permission-mode` option wins over it. */
  defaultMode: PermissionMode;
  /** False when settings.local.json switched the default denies off. */
  defaultDenies: boolean;
  /** The settings files that were read, relative to the working directory. */
  files: string[];
}

const ruleList = z.array(z.string({ error: 'each rule is a string, like "Bash(git diff:*)"' }), {
  error: "a list of rules is an array of strings",
});
const permissionsShape = z.strictObject(
  {
    allow: ruleList.optional(),
    ask: ruleList.optional(),
    deny: ruleList.optional(),
    defaultMode: z.enum(PERMISSION_MODES, { error: `defaultMode is one of ${PERMISSION_MODES.join(", ")}` }).optional(),
    [DISABLE_DEFAULT_DENIES]: z.boolean({ error: `${DISABLE_DEFAULT_DENIES} is true or false` }).optional(),
  },
  { error: "permissions is an object with allow, ask, deny, defaultMode" },
);
// other keys belong to other chapters (hooks, for one) and are left to them
const settingsShape = z.looseObject(
  { permissions: permissionsShape.optional() },
  { error: "a settings file holds one JSON object" },
);
type SettingsFile = z.infer<typeof settingsShape>;

/**
 * Read the settings of the project in `cwd` and the command line's rules.
 * Contract: never throws; a problem is a `SettingsError` to print and stop on. No file at all is
 * not a problem: the default denies and default mode apply.
 */
export function loadPermissionSettings(cwd: string, cliRules: CliRules = {}): PermissionSettings | SettingsError {
  const rules: SourcedRule[] = [];
  const files: string[] = [];
  let defaultMode: PermissionMode = "default";
  let defaultDenies = true;

  for (const file of [PROJECT_SETTINGS, LOCAL_SETTINGS]) {
    const path = join(cwd, file);
    if (!existsSync(path)) continue;
    const read = readSettingsFile(path, file);
    if (read instanceof SettingsError) return read;
    files.push(file);
    const { permissions } = read.settings;
    if (!permissions) continue;
    const lineOf = (keys: (string | number)[]) => lineAt(read.text, findNodeAtLocation(read.tree, keys)?.offset);
    if (file === PROJECT_SETTINGS) {
      if (permissions[DISABLE_DEFAULT_DENIES] !== undefined) {
        return new SettingsError(
          file,
          `${DISABLE_DEFAULT_DENIES} is honoured only in ${LOCAL_SETTINGS}, which is yours and not committed: a repository cannot switch off the protection of your secrets`,
          lineOf(["permissions", DISABLE_DEFAULT_DENIES]),
        );
      }
      if (permissions.defaultMode === "bypassPermissions") {
        return new SettingsError(
          file,
          `defaultMode bypassPermissions is honoured only in ${LOCAL_SETTINGS} or as an option: a repository cannot switch off every prompt`,
          lineOf(["permissions", "defaultMode"]),
        );
      }
    }
    if (permissions.defaultMode) defaultMode = permissions.defaultMode;
    if (permissions[DISABLE_DEFAULT_DENIES] === true) defaultDenies = false;
    for (const behavior of ["allow", "ask", "deny"] as const) {
      for (const [index, text] of (permissions[behavior] ?? []).entries()) {
        const parsed = parseRule(text);
        if (isRuleSyntaxError(parsed)) {
          return new SettingsError(file, parsed.error, lineOf(["permissions", behavior, index]), text);
        }
        rules.push({ rule: parsed, behavior, source: file });
      }
    }
  }

  for (const behavior of ["allow", "ask", "deny"] as const) {
    for (const text of cliRules[behavior] ?? []) {
      const parsed = parseRule(text);
      if (isRuleSyntaxError(parsed)) return new SettingsError(`--${behavior}`, parsed.error, undefined, text);
      rules.push({ rule: parsed, behavior, source: `--${behavior}` });
    }
  }

  if (defaultDenies) rules.push(...defaultDenyRules());
  return { rules, defaultMode, defaultDenies, files };
}

/**
 * The settings with no file and no option: the default denies, in default mode. A fresh object
 * each time, since an "always" answer adds rules to the settings it is given.
 */
export function defaultPermissionSettings(): PermissionSettings {
  return { rules: defaultDenyRules(), defaultMode: "default", defaultDenies: true, files: [] };
}

function defaultDenyRules(): SourcedRule[] {
  return DEFAULT_DENY_RULES.map((text) => {
    const parsed = parseRule(text);
    if (isRuleSyntaxError(parsed)) throw new Error(`default rule ${text}: ${parsed.error}`); // a bug, not input
    return { rule: parsed, behavior: "deny", source: DEFAULT_SOURCE };
  });
}

interface ReadSettings {
  settings: SettingsFile;
  text: string;
  tree: Node;
}

/** One file: strict JSON (no comments, no trailing commas), then its shape. */
function readSettingsFile(path: string, file: string): ReadSettings | SettingsError {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    return new SettingsError(file, `cannot be read: ${(error as Error).message}`);
  }
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, { disallowComments: true, allowTrailingComma: false });
  if (errors.length > 0 || !tree) {
    const first = errors[0];
    const what = first ? describeParseError(printParseErrorCode(first.error)) : "is empty";
    return new SettingsError(file, `is not valid JSON: ${what}`, first ? lineAt(text, first.offset) : undefined);
  }
  const checked = settingsShape.safeParse(JSON.parse(text));
  if (!checked.success) {
    const issue = checked.error.issues[0];
    const keys = issue.path.filter((key): key is string | number => typeof key !== "symbol");
    if (issue.code === "unrecognized_keys") {
      const key = issue.keys[0];
      const line = lineAt(text, findNodeAtLocation(tree, [...keys, key])?.parent?.offset);
      return new SettingsError(file, `unknown key ${JSON.stringify(key)} in ${keys.join(".") || "the file"}`, line);
    }
    const node = findNodeAtLocation(tree, keys) ?? tree;
    return new SettingsError(file, `${keys.join(".") || "the file"}: ${issue.message}`, lineAt(text, node.offset));
  }
  return { settings: checked.data, text, tree };
}

/** jsonc-parser's codes (`CommaExpected`) as words (`comma expected`). */
function describeParseError(code: string): string {
  return code.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
}

/** The 1-based line of a character offset. */
function lineAt(text: string, offset: number | undefined): number | undefined {
  if (offset === undefined) return undefined;
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}
