/**
 * What answering "always" leaves behind: its allow rules written into `.harness/settings.local.json`
 * (yours, not committed), so the next session starts with them. Never into one the project ships
 * (git tracks it, or a link leads out of `.harness`): that file is not yours to write, and what it
 * allows waits for trust anyway. The file keeps everything else it
 * holds, its formatting included (jsonc-parser edits the text in place), and is replaced whole or
 * not at all: the new text goes to a temporary file that is then renamed over it.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { applyEdits, modify, type ParseError, parse } from "jsonc-parser";
import { LOCAL_SETTINGS } from "./load-settings.ts";
import { SettingsError } from "./settings-error.ts";
import { shippedWithProject } from "./shipped-with-project.ts";

/**
 * Add `rules` to the allow list of the local settings of the project in `cwd`, creating the file
 * when there is none; the rules it holds already are not added twice.
 * Contract: never throws; returns the rules added, or a `SettingsError` (the file is then as it was).
 */
export function saveAllowRules(cwd: string, rules: readonly string[]): string[] | SettingsError {
  const shipped = shippedWithProject(cwd, LOCAL_SETTINGS);
  if (shipped)
    return new SettingsError(LOCAL_SETTINGS, `came with the project (${shipped}), so the rule was not written into it`);
  const path = join(cwd, LOCAL_SETTINGS);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
      return new SettingsError(LOCAL_SETTINGS, `cannot be read: ${(error as Error).message}`);
    }
    text = "{}\n";
  }
  const errors: ParseError[] = [];
  const settings = parse(text, errors, { disallowComments: true, allowTrailingComma: false });
  if (errors.length > 0 || settings === null || typeof settings !== "object" || Array.isArray(settings)) {
    return new SettingsError(LOCAL_SETTINGS, "is not a JSON object any more, so the rule was not written into it");
  }
  const permissions: unknown = settings.permissions ?? {};
  if (typeof permissions !== "object" || permissions === null || Array.isArray(permissions)) {
    return new SettingsError(LOCAL_SETTINGS, "permissions is not an object, so the rule was not written into it");
  }
  const allow: unknown = (permissions as { allow?: unknown }).allow ?? [];
  if (!Array.isArray(allow)) {
    return new SettingsError(LOCAL_SETTINGS, "permissions.allow is not a list, so the rule was not written into it");
  }
  const added = [...new Set(rules)].filter((rule) => !allow.includes(rule));
  for (const rule of added) {
    const edits = modify(text, ["permissions", "allow", -1], rule, {
      formattingOptions: { insertSpaces: true, tabSize: 2, eol: "\n" },
    });
    text = applyEdits(text, edits);
  }
  if (added.length === 0) return added;
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(temporary, text.endsWith("\n") ? text : `${text}\n`);
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    return new SettingsError(LOCAL_SETTINGS, `cannot be written: ${(error as Error).message}`);
  }
  return added;
}
