/**
 * The rules that hold with no settings at all: secrets and the harness's own files stay out of
 * the model's reach, through every tool, in every mode, bypassPermissions included.
 *
 * - reading any file whose name starts with `.env`, anywhere (`.env`, `.env.local`, `.envrc`;
 *   `.env.example` too, a price paid for not guessing which names hold secrets)...
 * - ...or writing or editing one (an `Edit` rule names edit_file, write_file and `> file`): a
 *   refused edit is refused before the file is opened, so its answer tells nothing of what is in it;
 * - reading the harness's own files under a `.harness` directory (the project's, or the home's:
 *   HARNESS_HOME, `~/.harness` by default), so the model cannot learn its limits there, nor read
 *   what it said before...
 * - ...nor editing anything there, skills and agents included, to widen its limits at the next start.
 *
 * The harness's own files, each chapter's: the files at the top of a `.harness` (`*.*`), where the
 * harness keeps them: settings.json and settings.local.json (s05, s06's hooks, s14's servers),
 * trusted-projects.json (s05's trust), and the `.tmp` files they are written through; `projects/`,
 * HARNESS_HOME's record of each project: traces (s04) and transcripts with their locks (s07); and
 * `agents/` (s12), a child's instructions, not the model's to read. `skills/` (s13) is left
 * readable: a skill's body sends the model to the files in its folder. A chapter that writes
 * somewhere new under `.harness` adds it here. The file tools reach none of `.harness` anyway
 * (s02's confinement; s13 re-roots a read inside a skill's folder): bash is where these rules do
 * their work. They name `.harness` folders only: a HARNESS_HOME of another name is not named.
 *
 * Through bash they hold where the parser sees the file: `cat .env`, `< .env`, `echo x > .env`,
 * `grep KEY .env`, `cat .e*` (a glob is expanded against the disk). They do not stop what it cannot see: a name
 * computed at run time (`cat "$(printf .en; printf v)"`), a program that opens the file itself
 * (`python3 -c "open('.env')"`), a directory read whole (`tar cf - .`, `grep -r KEY .`). Only an
 * operating-system boundary (a sandbox, a container, another user) stops those.
 *
 * Switching them off is a deliberate act, and a personal one: `"disableDefaultDenies": true` in
 * `.harness/settings.local.json` (never committed). The committed `.harness/settings.json` of a
 * repository someone clones cannot switch them off.
 */

/** The default deny rules, as rule text. */
export const DEFAULT_DENY_RULES: readonly string[] = [
  "Read(//**/.env*)",
  "Edit(//**/.env*)",
  "Read(//**/.harness/*.*)",
  "Read(//**/.harness/projects/**)",
  "Read(//**/.harness/agents/**)",
  "Edit(//**/.harness/**)",
];

/** The source a default rule reports in a decision. */
export const DEFAULT_SOURCE = "default";

/** The settings key that switches the default denies off (honoured in settings.local.json only). */
export const DISABLE_DEFAULT_DENIES = "disableDefaultDenies";
