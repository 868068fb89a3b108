/**
 * An OpenAI format's adapter, built: an `openai` client whose every request passes the endpoint
 * guard, and the Chat Completions or Responses adapter on it. `createAdapter` loads this file (and
 * with it the `openai` SDK) on a run's first model call in an OpenAI format, so a run on the
 * Messages API never loads it.
 */
import OpenAI from "openai";
import type { AdapterOptions, ProviderAdapter } from "../provider-adapter.ts";
import { openAiChatAdapter } from "./openai-chat-adapter.ts";
import { CHAT_COMPLETIONS_API, guardedFetch, RESPONSES_API } from "./openai-endpoint-guard.ts";
import { openAiResponsesAdapter } from "./openai-responses-adapter.ts";

/** The two OpenAI formats. */
export type OpenAiFormat = "openai-chat" | "openai-responses";

/** Where an OpenAI format's requests go, and how long the guard waits. */
export interface OpenAiClientOptions {
  apiKey: string;
  baseURL: string;
  /** Milliseconds the guard waits for the model. */
  timeoutMs: number;
  /** What sends the requests (default: the global `fetch`; offline, the scripted model's). */
  fetch?: typeof fetch;
  /** Retries the SDK may make (its default: 2). */
  maxRetries?: number;
}

/** The endpoint guard's view of each OpenAI format. */
const GUARDED_APIS = { "openai-chat": CHAT_COMPLETIONS_API, "openai-responses": RESPONSES_API } as const;

/** The adapter of `format` on an `openai` client built from `client`. */
export function openAiAdapter(
  format: OpenAiFormat,
  client: OpenAiClientOptions,
  options: AdapterOptions = {},
): ProviderAdapter {
  const sdk = new OpenAI({
    apiKey: client.apiKey,
    baseURL: client.baseURL,
    // the guard's timer fires first: the SDK would retry its own timeout
    timeout: Math.min(client.timeoutMs + 1000, 2 ** 31 - 1),
    fetch: guardedFetch(GUARDED_APIS[format], client.timeoutMs, client.fetch),
    ...(client.maxRetries === undefined ? {} : { maxRetries: client.maxRetries }),
    // the SDK would print a line it cannot parse to the console; the error the run ends with says it once
    logLevel: "off",
  });
  return format === "openai-chat" ? openAiChatAdapter(sdk, options) : openAiResponsesAdapter(sdk, options);
}
