/**
 * The command line every chapter shares (COURSE.md's CLI contract), parsed with node:util.
 */
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { DEFAULT_BASH_TIMEOUT_SECONDS, DEFAULT_MAX_TURNS } from "@harness/shared";
import { DEFAULT_MODEL, DEFAULT_MODEL_TIMEOUT_SECONDS } from "./create-client.ts";
import { EXIT_CODES, type ExitCodes } from "./exit-code-for.ts";

/** What the command line asked for. */
export interface CliOptions {
  /** Run once with this prompt; `undefined` starts the REPL. */
  prompt?: string;
  maxTurns: number;
  json: boolean;
  offline: boolean;
  /** `undefined`: MODEL_ID, else the default model. */
  model?: string;
  /** Absolute directory the tools run in. */
  cwd: string;
  bashTimeoutSeconds: number;
  /** Seconds to wait for the model: a whole response in total, a stream between events. */
  modelTimeoutSeconds: number;
  help: boolean;
  /**
   * Chapter options beyond the contract (for example s04's `--trace`): a string, `true` for a
   * boolean option or an optional-value option given without a value, every value in the order
   * given for a repeatable one, `undefined` when absent.
   */
  extra: Record<string, string | boolean | string[] | undefined>;
}

/** A chapter's own option, beside the shared ones. */
export interface ExtraOption {
  name: string;
  type: "string" | "boolean";
  /**
   * A string option whose value may be left out (`--trace` or `--trace=ID`): alone it reads as
   * `true`; its value must be joined with `=`, since a separate word could be the prompt.
   */
  optionalValue?: boolean;
  /** A string option that may be given more than once (`--allow A --allow B`): its value is the list. */
  multiple?: boolean;
  /** Help text line, e.g. `--trace[=ID]        save every iteration`. */
  help: string;
}

/** Bad usage: the message is the one line the CLI prints. */
export class UsageError extends Error {}

/** The contract's options, as node's parser reads them. */
const CONTRACT_OPTIONS = {
  "max-turns": { type: "string" },
  json: { type: "boolean" },
  offline: { type: "boolean" },
  model: { type: "string" },
  cwd: { type: "string" },
  "bash-timeout": { type: "string" },
  "model-timeout": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

/**
 * Parse `argv` (without node and the script).
 * Throws `UsageError` on an unknown option or a bad value; `--help` wins over everything else.
 */
export function parseCliArgs(
  argv: string[],
  defaults: { cwd: string } = { cwd: process.env.INIT_CWD ?? process.cwd() },
  extras: ExtraOption[] = [],
): CliOptions {
  const options = argv.slice(0, argv.includes("--") ? argv.indexOf("--") : argv.length);
  const wantsHelp = options.includes("--help") || options.includes("-h");
  const { args, alone } = readOptionalValues(joinNegativeNumbers(argv, extras), extras, wantsHelp);
  let parsed: ReturnType<typeof parseArgs>;
  const extraConfig = Object.fromEntries(extras.map((e) => [e.name, { type: e.type, multiple: e.multiple === true }]));
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: { ...CONTRACT_OPTIONS, ...extraConfig },
    });
  } catch (error) {
    throw new UsageError(`${(error as Error).message.split("\n")[0]} (see --help)`);
  }
  const v = parsed.values as Record<string, string | boolean | string[] | undefined>;
  const prompt = parsed.positionals.join(" ").trim();
  // a prompt given but blank is a mistake (an empty variable, stray quotes), not a request for the REPL
  if (!v.help && parsed.positionals.length > 0 && prompt === "") {
    throw new UsageError("the prompt is empty (to start the REPL, give no prompt at all)");
  }
  const cwd = resolve(defaults.cwd, (v.cwd as string | undefined) ?? ".");
  if (!v.help && !isDirectory(cwd)) throw new UsageError(`--cwd: ${cwd} is not a directory`);
  return {
    prompt: prompt === "" ? undefined : prompt,
    // with --help, a bad value is not worth an error: the help is what was asked for
    maxTurns:
      v["max-turns"] === undefined || v.help
        ? DEFAULT_MAX_TURNS
        : positiveInteger("--max-turns", v["max-turns"] as string),
    json: v.json === true,
    offline: v.offline === true,
    model: v.model as string | undefined,
    cwd,
    bashTimeoutSeconds:
      v["bash-timeout"] === undefined || v.help
        ? DEFAULT_BASH_TIMEOUT_SECONDS
        : positiveNumber("--bash-timeout", v["bash-timeout"] as string),
    modelTimeoutSeconds:
      v["model-timeout"] === undefined || v.help
        ? DEFAULT_MODEL_TIMEOUT_SECONDS
        : positiveNumber("--model-timeout", v["model-timeout"] as string),
    help: v.help === true,
    extra: Object.fromEntries(extras.map((e) => [e.name, alone.has(e.name) ? (v[e.name] ?? true) : v[e.name]])),
  };
}

/** Options that take a value: the contract's, and a chapter's string options. */
function valueOptions(extras: ExtraOption[]): Set<string> {
  const contract = Object.entries(CONTRACT_OPTIONS).filter(([, o]) => o.type === "string");
  const own = extras.filter((e) => e.type === "string" && !e.optionalValue);
  return new Set([...contract.map(([name]) => `--${name}`), ...own.map((e) => `--${e.name}`)]);
}

/**
 * `--bash-timeout -1` as `--bash-timeout=-1`: node's parser takes a value that starts with a dash
 * for a forgotten one, but a negative number is a value, and the check after says what is wrong.
 */
function joinNegativeNumbers(argv: string[], extras: ExtraOption[]): string[] {
  const takesValue = valueOptions(extras);
  const joined: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--") return [...joined, ...argv.slice(i)];
    if (takesValue.has(argv[i]) && /^-\.?\d/.test(argv[i + 1] ?? "")) joined.push(`${argv[i]}=${argv[++i]}`);
    else joined.push(argv[i]);
  }
  return joined;
}

/**
 * Take out each optional-value option given alone (`--trace`), and refuse one followed by a bare
 * word (`--trace demo "What is…"`): whether that word is the value or the prompt's first word is
 * a guess, and a wrong guess would quietly send "demo" to the model.
 */
function readOptionalValues(
  argv: string[],
  extras: ExtraOption[],
  wantsHelp: boolean,
): { args: string[]; alone: Set<string> } {
  const optional = new Set(extras.filter((e) => e.type === "string" && e.optionalValue).map((e) => `--${e.name}`));
  const args: string[] = [];
  const alone = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--") return { args: [...args, ...argv.slice(i)], alone };
    if (!optional.has(arg)) {
      args.push(arg);
      continue;
    }
    const next = argv[i + 1];
    if (!wantsHelp && next !== undefined && !next.startsWith("-") && !/\s/.test(next.trim())) {
      throw new UsageError(
        `${arg} takes its value joined with "=": write ${arg}=${next} (or, if "${next}" begins the prompt, put ${arg} after it)`,
      );
    }
    alone.add(arg.slice(2));
  }
  return { args, alone };
}

/**
 * The `--help` text; `exitCodes` are the chapter's own, listed after the contract's; `commands`,
 * its REPL commands' help lines; `environment`, lines on the variables it reads besides the contract's.
 */
export function usage(
  command: string,
  summary: string,
  extras: ExtraOption[] = [],
  exitCodes: ExitCodes = {},
  commands: readonly string[] = [],
  environment: readonly string[] = [],
): string {
  const statuses = (codes: ExitCodes) =>
    Object.entries(codes)
      .map(([reason, code]) => `${code} ${reason}`)
      .join(", ");
  const own = Object.keys(exitCodes).length > 0 ? [`             this chapter: ${statuses(exitCodes)}`] : [];
  return [
    `${command}: ${summary}`,
    "",
    `usage: pnpm ${command} [options] [prompt]`,
    "",
    "  prompt              run once with this prompt and exit; without it, an interactive REPL",
    `                      ("${command} >> ", q / exit / Ctrl-D quits; history kept between prompts)`,
    `  --max-turns N       turn budget (default ${DEFAULT_MAX_TURNS})`,
    "  --json              print the AgentLoopResult as one JSON line, the last line of stdout",
    "  --offline           use the built-in scripted model even when a key is set",
    `  --model ID          model id (default: MODEL_ID, else ${DEFAULT_MODEL})`,
    "  --cwd DIR           where tools run (default: the directory pnpm was started from)",
    `  --bash-timeout S    seconds before a bash command is killed (default ${DEFAULT_BASH_TIMEOUT_SECONDS})`,
    "  --model-timeout S   seconds of silence from the model before a call fails (a stream: between",
    `                      events; a whole response: in total; default ${DEFAULT_MODEL_TIMEOUT_SECONDS})`,
    ...extras.map((e) => `  ${e.help}`),
    "  -h, --help          show this help",
    "",
    "environment: ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN, ANTHROPIC_BASE_URL, MODEL_ID",
    ...environment.map((line) => `             ${line}`),
    "             (from the shell or .env at the repository root; the shell wins)",
    `exit status: ${statuses(EXIT_CODES)}`,
    ...own,
    ...(commands.length > 0 ? ["", "in the REPL:", ...commands.map((help) => `  ${help}`)] : []),
  ].join("\n");
}

function positiveInteger(flag: string, value: string): number {
  const n = Number(value);
  if (value.trim() === "" || !Number.isInteger(n) || n < 1)
    throw new UsageError(`${flag} expects a whole number of at least 1, got ${shown(value)}`);
  return n;
}

function positiveNumber(flag: string, value: string): number {
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n) || n <= 0)
    throw new UsageError(`${flag} expects a positive number of seconds, got ${shown(value)}`);
  return n;
}

/** A value as the user typed it; quoted when it is empty or has spaces, so it is seen. */
function shown(value: string): string {
  return value === "" || /\s/.test(value) ? JSON.stringify(value) : value;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
