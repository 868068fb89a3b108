/**
 * s05's options, and what they build: the rules (from .harness/settings.json, its .local twin and
 * `--allow` / `--ask` / `--deny`) and the mode, read once before any model call, what the project
 * ships that widens them applied once trusted; and the question a call that asks puts to the user,
 * where "always" also writes its rules to the local settings.
 */
import type { AskAnswer, CliOptions, ExtraOption } from "@harness/cli";
import type { AskPermission, PermissionRequest } from "./permission-gate.ts";
import { isPermissionMode, PERMISSION_MODES, type PermissionMode } from "./permission-mode.ts";
import { decideTrust, type Shipped, type TrustDecision } from "./project-trust.ts";
import {
  type CliRules,
  type HeldSetting,
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

/** The rules and the mode as read, before trust decides whether what the project ships applies. */
export interface PermissionsRead {
  /** The project the settings were read from. */
  cwd: string;
  /** What holds until the project is trusted: your own settings and options, the project's deny and ask rules. */
  untrusted: Permissions;
  /** The same, with what the project ships that widens what runs applied. */
  trusted: Permissions;
  /** What the project ships that widens what runs, for `decideTrust` (no lines when there is none). */
  shipped: Shipped;
}

/**
 * Read the rules (settings files, then the options' rules) and the mode (`--permission-mode`,
 * else the settings' `defaultMode`), as they are before and after the project is trusted.
 * Contract: a rule, a file or a mode that is wrong throws one line naming the file, the line and the rule.
 */
export function readPermissions(options: CliOptions): PermissionsRead {
  const rules = (name: keyof CliRules) => options.extra[name] as string[] | undefined;
  const cliRules = { allow: rules("allow"), ask: rules("ask"), deny: rules("deny") };
  const option = options.extra["permission-mode"] as string | undefined;
  const read = (trusted: boolean): Permissions => {
    const settings = loadPermissionSettings(options.cwd, cliRules, { trusted });
    if (settings instanceof SettingsError) throw settings;
    const mode = option ?? settings.defaultMode;
    if (!isPermissionMode(mode)) {
      throw new Error(`--permission-mode: "${mode}" is not a mode; use one of ${PERMISSION_MODES.join(", ")}`);
    }
    return { settings, mode };
  };
  const untrusted = read(false);
  // a mode given as an option wins: the project's is not asked about
  const held = untrusted.settings.held.filter((one) => option === undefined || one.setting !== "defaultMode");
  const trusted = held.length > 0 ? read(true) : untrusted;
  return { cwd: options.cwd, untrusted, trusted, shipped: shippedPermissions(held) };
}

/** The permissions that apply once trust is decided: the trusted ones when `decision` trusts the project's permissions. */
export function permissionsAfter(read: PermissionsRead, decision: TrustDecision): Permissions {
  return decision.trusted.includes(read.shipped.kind) ? read.trusted : read.untrusted;
}

/**
 * Decide whether what the project ships applies (asked with `ask` at a terminal; without one, it
 * does not, and `say` tells what was left out in one line) and return the permissions that apply.
 * Contract: never rejects.
 */
export async function trustedPermissions(
  read: PermissionsRead,
  {
    ask,
    say,
  }: { ask?: (question: string, choices: readonly AskAnswer[]) => Promise<AskAnswer>; say(line: string): void },
): Promise<Permissions> {
  const decision = await decideTrust(read.cwd, [read.shipped], {
    ask: ask && ((question) => ask(question, ["yes", "no", "always"])),
  });
  if (decision.notice) say(decision.notice);
  return permissionsAfter(read, decision);
}

/** The held settings as a thing to trust: one line each for the question, a few words per file for the notice. */
function shippedPermissions(held: readonly HeldSetting[]): Shipped {
  const where = (one: HeldSetting) => (one.shipped === "the project's" ? one.file : `${one.file}, ${one.shipped}`);
  const files = [...new Set(held.map(where))];
  const summary = files.map((file) => {
    const here = held.filter((one) => where(one) === file);
    const allow = here.filter((one) => one.setting === "allow").length;
    const parts = [
      ...(allow > 0 ? [`${allow} allow rule${allow === 1 ? "" : "s"}`] : []),
      ...here.filter((one) => one.setting !== "allow").map(describe),
    ];
    const [name, why] = file.split(", ");
    return `${parts.join(", ")} in ${name}${why ? ` (${why})` : ""}`;
  });
  return {
    kind: "permissions",
    definitions: held.map(({ file, setting, value }) => ({ file, setting, value })),
    lines: held.map((one) => `${describe(one)}   (${where(one)})`),
    summary: summary.join("; "),
  };
}

function describe(one: HeldSetting): string {
  return one.value === true ? one.setting : `${one.setting} ${one.value}`;
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
