/**
 * What goes wrong with settings, said once at start: the file, the line, the rule, what is wrong.
 * It is returned, not thrown: a CLI prints `error.message` as its one line and exits.
 */

/** A settings file or rule that cannot be used. */
export class SettingsError extends Error {
  override name = "SettingsError";

  constructor(
    /** The settings file (`.harness/settings.json`) or the option (`--deny`) the problem is in. */
    readonly file: string,
    /** What is wrong, one sentence. */
    readonly problem: string,
    /** The 1-based line in `file`, when the problem has one. */
    readonly line?: number,
    /** The rule's text, when a rule is the problem. */
    readonly rule?: string,
  ) {
    const where = line === undefined ? file : `${file}:${line}`;
    const what = rule === undefined ? problem : `the rule ${JSON.stringify(rule)} does not parse: ${problem}`;
    super(`${where}: ${what}`);
  }
}
