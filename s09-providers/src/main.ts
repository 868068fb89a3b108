/**
 * s09's command line: s08's, plus `--provider`, the wire format the model calls speak
 * (`selectProvider` says how it defaults from the environment). The adapter is chosen once at
 * start, in place of s08's client (`connect`); each prompt runs this chapter's loop on it, and
 * `/compact` sends its summary request through it. Sessions, hooks, permissions, traces and the
 * context window work as in s08, on every format; a session continues on another provider.
 */

import { type CliIo, type ExtraOption, isProgram, processIo } from "@harness/cli";
import { killRunningHooks } from "@harness/s06-hooks";
import { type CompactionCliParts, compactionMain, contextSettings, S08_OPTIONS } from "@harness/s08-compaction";
import { agentLoop } from "./agent-loop.ts";
import { createAdapter } from "./create-adapter.ts";
import { describeOpenAiError, type OpenAiErrorContext } from "./describe-openai-error.ts";
import { type ProviderAdapter, WIRE_FORMATS } from "./provider-adapter.ts";
import { DEFAULT_OPENAI_BASE_URL, DEFAULT_OPENAI_MODEL, isWireFormat } from "./select-provider.ts";

/** s08's options, unchanged, and `--provider`. */
export const S09_OPTIONS: ExtraOption[] = [
  {
    name: "provider",
    type: "string",
    help:
      `--provider P        the wire format: ${WIRE_FORMATS.join(", ")}; default: anthropic\n` +
      "                      with an Anthropic key, else openai-chat with OPENAI_API_KEY (endpoint:\n" +
      "                      OPENAI_BASE_URL); with no key for it, the scripted model speaks it",
  },
  ...S08_OPTIONS,
];

/**
 * s08's CLI parts with a provider: `connect` builds the adapter `--provider` and the environment
 * choose, each prompt runs s09's loop on it, and an OpenAI format's error is one line naming its
 * endpoint. Notices (reasoning not sent across formats) go to `stderr`.
 */
export function providerParts(stderr: NodeJS.WritableStream = process.stderr): CompactionCliParts {
  let adapter: ProviderAdapter | undefined;
  let connection: OpenAiErrorContext | undefined; // where an OpenAI format's calls go, for its errors
  const chosen = () => {
    if (!adapter) throw new Error("no provider was chosen");
    return adapter;
  };
  return {
    command: "s09",
    summary: "one loop, many wire formats (--provider)",
    extraOptions: S09_OPTIONS,
    environment: [
      `OPENAI_API_KEY, OPENAI_BASE_URL for the OpenAI formats (their default model: ${DEFAULT_OPENAI_MODEL})`,
    ],
    connect(options, env) {
      const provider = options.extra.provider;
      if (provider !== undefined && !isWireFormat(provider)) {
        throw new Error(`--provider: "${provider}" is not a wire format; use one of ${WIRE_FORMATS.join(", ")}`);
      }
      const window = contextSettings(options.extra);
      const choice = createAdapter({
        provider,
        offline: options.offline,
        model: options.model,
        modelTimeoutSeconds: options.modelTimeoutSeconds,
        env,
        notice: (line) => stderr.write(`s09: ${line}\n`),
        ...(typeof window === "string" ? {} : window),
      });
      adapter = choice.adapter;
      if (choice.format !== "anthropic" && choice.kind === "api") {
        connection = { baseURL: choice.baseURL ?? DEFAULT_OPENAI_BASE_URL, keySource: choice.keySource };
      }
      return choice;
    },
    loop: (history, options) =>
      agentLoop(chosen(), history, options).catch((error: unknown) => {
        const line = connection && describeOpenAiError(error, connection);
        throw line ? new Error(line, { cause: error }) : error;
      }),
    send: () => chosen().streamTurn,
  };
}

/**
 * Run the CLI on `argv`: s08's, with this chapter's parts. Everything s08 checks first is checked
 * first; a `--provider` that names no wire format is one line on stderr and exit status 1, before
 * any model call.
 */
export function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  return compactionMain(argv, io, providerParts(io.stderr));
}

if (isProgram(import.meta.filename)) {
  process.on("exit", killRunningHooks); // a second Ctrl-C exits at once: no hook is left running
  process.exit(await main(process.argv.slice(2)));
}
