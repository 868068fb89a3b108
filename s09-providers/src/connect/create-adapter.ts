/**
 * The adapter a run talks through: `selectProvider`'s choice, built. The Anthropic format gets
 * shared's `createClient` as every chapter does; the OpenAI formats get an `openai` client with the
 * same endpoint guard; with no key, the scripted model answers in the chosen format. The `openai`
 * SDK is loaded by an OpenAI format's first model call (`loadedOnFirstCall`), never at start.
 */

import {
  type ClientChoice,
  type CreateClientOptions,
  createClient,
  DEFAULT_MODEL_TIMEOUT_SECONDS,
  endpointGuard,
  loadEnv,
  type OfflineModel,
} from "@harness/cli";
import { type CompactionMode, withServerBetas } from "@harness/s08-compaction";
import { anthropicAdapter } from "../anthropic-adapter.ts";
import type { OpenAiClientOptions, OpenAiFormat } from "../openai/openai-adapter.ts";
import type { AdapterOptions, ProviderAdapter, WireFormat } from "../provider-adapter.ts";
import { DEFAULT_OPENAI_BASE_URL, DEFAULT_OPENAI_MODEL, selectProvider } from "./select-provider.ts";

/** Where a run's model calls go: shared's `ClientChoice`, with an adapter in place of the client. */
export interface AdapterChoice extends Omit<ClientChoice, "client"> {
  /** The wire format the adapter speaks. */
  format: WireFormat;
  adapter: ProviderAdapter;
}

/** What `createAdapter` reads: `createClient`'s options, the format, and where notices go. */
export interface CreateAdapterOptions extends CreateClientOptions, AdapterOptions {
  /** The wire format (`--provider`); without it, the environment decides (`selectProvider`). */
  provider?: WireFormat;
  /**
   * s08's compaction mode. `server` is the Messages API's context management: the Anthropic
   * client then sends its betas' header; the OpenAI formats have no such setting (an error).
   */
  compaction?: CompactionMode;
  /** The model that answers offline, in any format (the scripted model: main.ts makes it; only then is it made). */
  scripted: () => OfflineProvider;
}

/** An offline model for every format: an Anthropic client, and a `fetch` the OpenAI SDK can call (the scripted model has both). */
export interface OfflineProvider extends OfflineModel {
  /** Answers the OpenAI formats' requests, as a server would. */
  fetch: typeof fetch;
}

/** How to build an adapter in front of a scripted model (tests and benchmarks set these). */
export interface ScriptedAdapterOptions extends AdapterOptions {
  /** Retries the SDK may make (its default: 2). */
  maxRetries?: number;
  /** Milliseconds the guard waits for the model (default: `DEFAULT_MODEL_TIMEOUT_SECONDS`). */
  timeoutMs?: number;
}

/**
 * Choose and build the adapter.
 * Contract: never sends a request; a key is read only for the format chosen.
 */
export function createAdapter(options: CreateAdapterOptions): AdapterChoice {
  const env = loadEnv(options.env ?? process.env, options.envFile);
  const selection = selectProvider(options.provider, env, options.offline);
  const timeoutMs = clampTimeout((options.modelTimeoutSeconds ?? DEFAULT_MODEL_TIMEOUT_SECONDS) * 1000);
  const adapterOptions: AdapterOptions = {
    notice: options.notice,
    retryDelayMs: options.retryDelayMs,
    promptCacheKey: options.promptCacheKey,
  };
  if (selection.format === "anthropic") {
    // the same rule picks the same credential: createClient says why when there is none
    const { client, ...choice } = createClient(options);
    const sender = options.compaction === "server" ? withServerBetas(client) : client;
    return { ...choice, format: "anthropic", adapter: anthropicAdapter(sender, adapterOptions) };
  }
  const format = selection.format;
  if (options.compaction === "server") {
    throw new Error(
      `--compaction server is the Messages API's context management, which this course sends only in that format, not ${format}; use client, or --provider anthropic`,
    );
  }
  const model = options.model ?? env.values.MODEL_ID ?? DEFAULT_OPENAI_MODEL;
  if (selection.kind === "scripted") {
    const scripted = options.scripted();
    return {
      format,
      model,
      kind: "scripted",
      adapter: scriptedAdapter(format, scripted, { ...adapterOptions, timeoutMs }),
      notice:
        `Using the offline scripted model, speaking ${format} (${selection.scriptedReason}); ` +
        "set OPENAI_API_KEY (and OPENAI_BASE_URL for another server) in the shell or in .env to use a real model.",
    };
  }
  const credential = selection.credential ?? "OPENAI_API_KEY";
  const baseURL = env.values.OPENAI_BASE_URL?.trim() || undefined;
  const client = {
    apiKey: String(env.values[credential]).trim(),
    baseURL: baseURL ?? DEFAULT_OPENAI_BASE_URL,
    timeoutMs,
  };
  const keySource = `${credential} from ${env.sourceOf(credential)}`;
  const endpoint = baseURL
    ? `${baseURL} (OPENAI_BASE_URL from ${env.sourceOf("OPENAI_BASE_URL")})`
    : DEFAULT_OPENAI_BASE_URL;
  const adapter = openAiOnFirstCall(format, client, adapterOptions);
  return {
    format,
    model,
    kind: "api",
    keySource,
    baseURL,
    adapter,
    notice: `Using ${endpoint} (${format}), model ${model}, with ${keySource}.`,
  };
}

/**
 * An adapter of `format` in front of `model`, in process: what answers with no key. Every format
 * goes through its real SDK and the endpoint guard, as a real provider's would.
 */
export function scriptedAdapter(
  format: WireFormat,
  model: OfflineProvider,
  options: ScriptedAdapterOptions = {},
): ProviderAdapter {
  const timeoutMs = clampTimeout(options.timeoutMs ?? DEFAULT_MODEL_TIMEOUT_SECONDS * 1000);
  if (format === "anthropic") {
    const client = model.client({
      maxRetries: options.maxRetries,
      timeout: timeoutMs,
      middleware: [endpointGuard({ timeoutMs })],
    });
    return anthropicAdapter(client, options);
  }
  const client = {
    apiKey: "scripted-model-key",
    baseURL: "http://scripted-model.invalid/v1",
    timeoutMs,
    fetch: model.fetch,
    maxRetries: options.maxRetries,
  };
  return openAiOnFirstCall(format, client, options);
}

/**
 * The adapter of an OpenAI format, built by its first model call: its library (`openai-adapter.ts`,
 * and the `openai` SDK under it) loads then, so a run that never calls it never loads it.
 */
function openAiOnFirstCall(
  format: OpenAiFormat,
  client: OpenAiClientOptions,
  options: AdapterOptions,
): ProviderAdapter {
  let loading: Promise<ProviderAdapter> | undefined;
  let adapter: ProviderAdapter | undefined;
  return {
    format,
    streamTurn: async (request, signal, emit) => {
      loading ??= import("../openai/openai-adapter.ts").then((m) => m.openAiAdapter(format, client, options));
      adapter ??= await loading;
      return adapter.streamTurn(request, signal, emit);
    },
    // a refusal is an error a call threw, so the adapter is loaded by then
    promptTooLong: (error) => adapter?.promptTooLong(error) ?? null,
  };
}

/** Whole milliseconds, at least 1 and at most what `setTimeout` accepts. */
function clampTimeout(ms: number): number {
  return Math.min(Math.max(Math.round(ms), 1), 2 ** 31 - 1);
}
