/**
 * s05's options, and what they build: the rules (from .harness/settings.json, its .local twin and
 * `--allow` / `--ask` / `--deny`) and the mode, read once before any model call; and the question
 * a call that asks puts to the user, where "always" also writes its rules to the local settings.
 */
import type { AskAnswer, CliOptions, ExtraOption } from "@harness/cli";
import type { AskPermission, PermissionRequest } from "./permission-gate.ts";
import { isPermissionMode, PERMISSION_MODES, type PermissionMode } from "./permission-mode.ts";
import {
  type CliRules,
  LOCAL_SETTINGS,
  loadPermissionSettings,
  type PermissionSettings,
} from "./rules/load-settings.ts";
import { saveAllowRules } from "./rules/save-allow-rules.ts";
import { SettingsError } from "./rules/settings-error.ts";

/** The mode and the rules. */
export const PERMISSION_FLAGS: readonly ExtraOption[] = [
  {
    name: "permission-mode",
    type: "string",
    help: `--permission-mode M what runs when no rule names it: ${PERMISSION_MODES.join(", ")}`,
  },
  {
    name: "allow",
    type: "string",
    multiple: true,
    help: "--allow RULE        run what RULE names without asking (repeatable)",
  },
  { name: "ask", type: "string", multiple: true, help: "--ask RULE          ask before what RULE names (repeatable)" },
  { name: "deny", type: "string", multiple: true, help: "--deny RULE         never run what RULE names (repeatable)" },
];

/** The rules in force and the mode, as the options and the settings files say. */
export interface Permissions {
  /** The same object for the whole session: an "always" answer adds its rules to it. */
  settings: PermissionSettings;
  mode: PermissionMode;
}

/**
 * Read the rules (settings files, then the options' rules) and the mode (`--permission-mode`,
 * else the settings' `defaultMode`).
 * Contract: a rule, a file or a mode that is wrong throws one line naming the file, the line and the rule.
 */
export function readPermissions(options: CliOptions): Permissions {
  const rules = (name: keyof CliRules) => options.extra[name] as string[] | undefined;
  const settings = loadPermissionSettings(options.cwd, {
    allow: rules("allow"),
    ask: rules("ask"),
    deny: rules("deny"),
  });
  if (settings instanceof SettingsError) throw settings;
  const mode = options.extra["permission-mode"] ?? settings.defaultMode;
  if (!isPermissionMode(mode)) {
    throw new Error(`--permission-mode: "${mode}" is not a mode; use one of ${PERMISSION_MODES.join(", ")}`);
  }
  return { settings, mode };
}

/**
 * Put a permission request to the user with `ask`; "always" also writes its rules to the local
 * settings, and `note` says so. Contract: resolves to one of `request.choices`; never rejects.
 */
export async function askTheUser(
  request: PermissionRequest,
  ask: (question: string, choices: readonly AskAnswer[]) => Promise<AskAnswer>,
  cwd: string,
  note: (line: string) => void,
): Promise<AskAnswer> {
  const answer = await ask(request.question, request.choices);
  if (answer === "always") {
    const rules = request.rules.join(", ");
    const saved = saveAllowRules(cwd, request.rules);
    note(
      saved instanceof SettingsError
        ? `allowed for this session: ${rules} (not saved: ${saved.message})`
        : `allowed from now on: ${rules} (in ${LOCAL_SETTINGS})`,
    );
  }
  return answer;
}

/** The gate's `ask`: `askTheUser` on the CLI's `ask`, "always" saved in the settings of `cwd`, `note` saying so. */
export function askPermissionWith(
  ask: (question: string, choices: readonly AskAnswer[]) => Promise<AskAnswer>,
  cwd: string,
  note: (line: string) => void,
): AskPermission {
  return (request) => askTheUser(request, ask, cwd, note);
}
