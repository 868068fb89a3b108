/**
 * s09's option, and what it builds: `--provider` names the wire format the model calls speak
 * (`selectProvider` says how it defaults from the environment), and the adapter for it is made
 * once at start, in place of s03's client. An OpenAI format's error is one line naming its endpoint.
 */
import type { CliOptions, CliStart, ExtraOption } from "@harness/cli";
import type { CompactionMode } from "@harness/s08-compaction";
import { createAdapter, type OfflineProvider } from "./connect/create-adapter.ts";
import { DEFAULT_OPENAI_BASE_URL, DEFAULT_OPENAI_MODEL, isWireFormat } from "./connect/select-provider.ts";
import { type ProviderAdapter, WIRE_FORMATS } from "./provider-adapter.ts";

/** The wire format. */
export const PROVIDER_FLAGS: readonly ExtraOption[] = [
  {
    name: "provider",
    type: "string",
    help:
      `--provider P        the wire format: ${WIRE_FORMATS.join(", ")}; default: anthropic\n` +
      "                      with an Anthropic key, else openai-chat with OPENAI_API_KEY (endpoint:\n" +
      "                      OPENAI_BASE_URL); with no key for it, the scripted model speaks it",
  },
];

/** The variables the help adds: the OpenAI formats'. */
export const PROVIDER_ENVIRONMENT = [
  `OPENAI_API_KEY, OPENAI_BASE_URL for the OpenAI formats (their default model: ${DEFAULT_OPENAI_MODEL})`,
];

/** Where the model calls go: the adapter, the model, and one line for an error of its endpoint. */
export interface Provider {
  adapter: ProviderAdapter;
  model: string;
  /** An error the model call threw, as the line the CLI prints (an OpenAI format's names its endpoint). */
  describe(error: unknown): Promise<unknown>;
}

/**
 * Choose the wire format (`--provider`, else the environment's keys) and build its adapter; its
 * start line is printed through `cli.use`, and notices (reasoning not sent across formats) go to `say`.
 * Contract: a `--provider` that names no wire format throws one line, before any model call.
 */
export function connectProvider(
  cli: Pick<CliStart, "io" | "use" | "say">,
  options: CliOptions,
  how: { compaction: CompactionMode; scripted: () => OfflineProvider; promptCacheKey?: () => string | undefined },
): Provider {
  const provider = options.extra.provider;
  if (provider !== undefined && !isWireFormat(provider)) {
    throw new Error(`--provider: "${provider}" is not a wire format; use one of ${WIRE_FORMATS.join(", ")}`);
  }
  const choice = createAdapter({
    provider,
    offline: options.offline,
    model: options.model,
    modelTimeoutSeconds: options.modelTimeoutSeconds,
    env: cli.io.env,
    notice: cli.say,
    compaction: how.compaction,
    scripted: how.scripted,
    promptCacheKey: how.promptCacheKey,
  });
  cli.use(choice);
  const openAi =
    choice.format !== "anthropic" && choice.kind === "api"
      ? { baseURL: choice.baseURL ?? DEFAULT_OPENAI_BASE_URL, keySource: choice.keySource }
      : undefined;
  return {
    adapter: choice.adapter,
    model: choice.model,
    async describe(error) {
      if (!openAi) return error;
      // the `openai` SDK's errors, read by a library a run on the Messages API never loads
      const { describeOpenAiError } = await import("./openai/describe-openai-error.ts");
      const line = describeOpenAiError(error, openAi);
      return line ? new Error(line, { cause: error }) : error;
    },
  };
}
