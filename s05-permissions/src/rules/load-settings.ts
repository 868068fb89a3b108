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
 * What a file the project ships says that widens what runs (an allow rule, a mode that runs more
 * than default mode, the default denies switched off) is held back until the user trusts it
 * (project-trust.ts): the project's settings.json, and a settings.local.json that came with the
 * clone (shipped-with-project.ts). Deny and ask rules apply from every file: they only narrow.
 *
 * Two settings are never honoured from settings.json, trusted or not: `"disableDefaultDenies": true`
 * and `"defaultMode": "bypassPermissions"`, which belong in your local file. Left out: user-wide and
 * managed settings (`~/.claude`, `/etc`), which Claude Code also reads.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { loadZod, readProjectFile, type Zod } from "@harness/s02-tool-dispatch";
import { findNodeAtLocation, type Node, type ParseError, parseTree, printParseErrorCode } from "jsonc-parser";
import type { z } from "zod";
import type { Behavior } from "../decision.ts";
import { PERMISSION_MODES, type PermissionMode } from "../permission-mode.ts";
import { DEFAULT_DENY_RULES, DEFAULT_SOURCE, DISABLE_DEFAULT_DENIES } from "./default-denies.ts";
import { isRuleSyntaxError, type PermissionRule, parseRule } from "./parse-rule.ts";
import { SettingsError } from "./settings-error.ts";
import { shippedWithProject } from "./shipped-with-project.ts";

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
  /** What the files the project ships say that widens what runs, left out above (none when trusted). */
  held: HeldSetting[];
}

/** A setting that widens what runs, from a file the project ships, held back until trusted. */
export interface HeldSetting {
  /** The file, relative to the working directory. */
  file: string;
  /** Why the file counts as the project's: `the project's`, `tracked by git`, `a link out of .harness`. */
  shipped: string;
  setting: "allow" | "defaultMode" | typeof DISABLE_DEFAULT_DENIES;
  /** The allow rule or the mode as written; `true` for disableDefaultDenies. */
  value: string | true;
}

/** How to read the settings. */
export interface LoadSettingsOptions {
  /** Apply what the project ships that widens what runs (the user trusts it); default false, held back. */
  trusted?: boolean;
}

/** The modes that run more than default mode does: a project needs trust to set them. */
const WIDER_MODES: readonly PermissionMode[] = ["acceptEdits", "bypassPermissions"];

/** The shape of a settings file, built the first time one is read (see `loadZod`). */
function settingsShapeWith(z: Zod) {
  const ruleList = z.array(z.string({ error: 'each rule is a string, like "Bash(git diff:*)"' }), {
    error: "a list of rules is an array of strings",
  });
  const permissionsShape = z.strictObject(
    {
      allow: ruleList.optional(),
      ask: ruleList.optional(),
      deny: ruleList.optional(),
      defaultMode: z
        .enum(PERMISSION_MODES, { error: `defaultMode is one of ${PERMISSION_MODES.join(", ")}` })
        .optional(),
      [DISABLE_DEFAULT_DENIES]: z.boolean({ error: `${DISABLE_DEFAULT_DENIES} is true or false` }).optional(),
    },
    { error: "permissions is an object with allow, ask, deny, defaultMode" },
  );
  // other keys belong to other chapters (hooks, for one) and are left to them
  return z.looseObject(
    { permissions: permissionsShape.optional() },
    { error: "a settings file holds one JSON object" },
  );
}
let settingsShape: ReturnType<typeof settingsShapeWith> | undefined;
type SettingsFile = z.infer<ReturnType<typeof settingsShapeWith>>;

/**
 * Read the settings of the project in `cwd` and the command line's rules.
 * Contract: never throws; a problem is a `SettingsError` to print and stop on. No file at all is
 * not a problem: the default denies and default mode apply. Unless `trusted`, what a file the
 * project ships says that widens what runs is in `held`, not in force.
 */
export function loadPermissionSettings(
  cwd: string,
  cliRules: CliRules = {},
  options: LoadSettingsOptions = {},
): PermissionSettings | SettingsError {
  const rules: SourcedRule[] = [];
  const files: string[] = [];
  const held: HeldSetting[] = [];
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
    // a file the project ships widens nothing until trusted
    const shipped = file === PROJECT_SETTINGS ? "the project's" : shippedWithProject(cwd, file);
    const hold = (setting: HeldSetting["setting"], value: string | true) => {
      if (shipped === undefined || options.trusted) return false;
      held.push({ file, shipped, setting, value });
      return true;
    };
    const mode = permissions.defaultMode;
    if (mode && !(WIDER_MODES.includes(mode) && hold("defaultMode", mode))) defaultMode = mode;
    if (permissions[DISABLE_DEFAULT_DENIES] === true && !hold(DISABLE_DEFAULT_DENIES, true)) defaultDenies = false;
    for (const behavior of ["allow", "ask", "deny"] as const) {
      for (const [index, text] of (permissions[behavior] ?? []).entries()) {
        const parsed = parseRule(text);
        if (isRuleSyntaxError(parsed)) {
          return new SettingsError(file, parsed.error, lineOf(["permissions", behavior, index]), text);
        }
        if (behavior === "allow" && hold("allow", text)) continue;
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
  return { rules, defaultMode, defaultDenies, files, held };
}

/**
 * The settings with no file and no option: the default denies, in default mode. A fresh object
 * each time, since an "always" answer adds rules to the settings it is given.
 */
export function defaultPermissionSettings(): PermissionSettings {
  return { rules: defaultDenyRules(), defaultMode: "default", defaultDenies: true, files: [], held: [] };
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
    text = readProjectFile(path);
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
  settingsShape ??= settingsShapeWith(loadZod());
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
