/**
 * The command line every chapter shares (COURSE.md's CLI contract), parsed with node:util.
 */
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { DEFAULT_MODEL_TIMEOUT_SECONDS } from "../create-client.ts";
import { DEFAULT_BASH_TIMEOUT_SECONDS } from "../run-bash.ts";

/** The default turn budget. */
export const DEFAULT_MAX_TURNS = 8;

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
  /** Chapter options beyond the contract (for example s03's `--trace`). */
  extra: Record<string, string | boolean | undefined>;
}

/** A chapter's own option, beside the shared ones. */
export interface ExtraOption {
  name: string;
  type: "string" | "boolean";
  /** Help text line, e.g. `--trace [ID]       save every iteration`. */
  help: string;
}

/** Bad usage: the message is the one line the CLI prints. */
export class UsageError extends Error {}

/**
 * Parse `argv` (without node and the script).
 * Throws `UsageError` on an unknown option or a bad value; `--help` wins over everything else.
 */
export function parseCliArgs(
  argv: string[],
  defaults: { cwd: string } = { cwd: process.env.INIT_CWD ?? process.cwd() },
  extras: ExtraOption[] = [],
): CliOptions {
  let parsed: ReturnType<typeof parseArgs>;
  const extraConfig = Object.fromEntries(extras.map((e) => [e.name, { type: e.type }]));
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        "max-turns": { type: "string" },
        json: { type: "boolean" },
        offline: { type: "boolean" },
        model: { type: "string" },
        cwd: { type: "string" },
        "bash-timeout": { type: "string" },
        "model-timeout": { type: "string" },
        help: { type: "boolean", short: "h" },
        ...extraConfig,
      },
    });
  } catch (error) {
    throw new UsageError(`${(error as Error).message.split("\n")[0]} (see --help)`);
  }
  const v = parsed.values as Record<string, string | boolean | undefined>;
  const prompt = parsed.positionals.join(" ").trim();
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
    extra: Object.fromEntries(extras.map((e) => [e.name, v[e.name]])),
  };
}

/** The `--help` text. */
export function usage(command: string, summary: string, extras: ExtraOption[] = []): string {
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
    "  --model ID          model id (default: MODEL_ID, else a current Claude model)",
    "  --cwd DIR           where tools run (default: the directory pnpm was started from)",
    `  --bash-timeout S    seconds before a bash command is killed (default ${DEFAULT_BASH_TIMEOUT_SECONDS})`,
    "  --model-timeout S   seconds of silence from the model before a call fails (a stream: between",
    `                      events; a whole response: in total; default ${DEFAULT_MODEL_TIMEOUT_SECONDS})`,
    ...extras.map((e) => `  ${e.help}`),
    "  -h, --help          show this help",
    "",
    "environment: ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN, ANTHROPIC_BASE_URL, MODEL_ID",
    "             (from the shell or .env at the repository root; the shell wins)",
    "exit status: 0 final_answer, 2 max_turns, 3 max_tokens, 1 error, 130 interrupted",
  ].join("\n");
}

function positiveInteger(flag: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new UsageError(`${flag} must be a whole number of at least 1, not "${value}"`);
  return n;
}

function positiveNumber(flag: string, value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0)
    throw new UsageError(`${flag} must be a number of seconds above 0, not "${value}"`);
  return n;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
