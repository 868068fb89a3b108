/**
 * The Responses API behind the seam, through the official `openai` SDK: the request translated
 * (`toResponsesRequest`), the stream read (`readResponsesStream`), the answer mapped
 * (`messageFromResponse`), with s03's rule for a stream that fails before its content.
 */
import type OpenAI from "openai";
import { historyForFormat, noticeOnce } from "../history-for-format.ts";
import type { AdapterOptions, ProviderAdapter } from "../provider-adapter.ts";
import { messageFromResponse } from "./message-from-responses.ts";
import { asEndpointError } from "./openai-endpoint-guard.ts";
import { openAiPromptTooLong } from "./openai-prompt-too-long.ts";
import { readResponsesStream } from "./read-responses-stream.ts";
import { retryOpenAiStream } from "./retry-openai-stream.ts";
import { toResponsesRequest } from "./to-responses-request.ts";

/** An adapter that streams turns from a Responses API endpoint through `client`. */
export function openAiResponsesAdapter(client: OpenAI, options: AdapterOptions = {}): ProviderAdapter {
  const drop = noticeOnce(options.notice);
  return {
    format: "openai-responses",
    promptTooLong: openAiPromptTooLong,
    streamTurn: (request, signal, emit = () => {}) => {
      const key = options.promptCacheKey?.();
      const params = {
        ...toResponsesRequest({ ...request, messages: historyForFormat(request.messages, "openai-responses", drop) }),
        ...(key ? { prompt_cache_key: key } : {}),
      };
      return retryOpenAiStream(
        async (progress) => {
          // a refusal of the endpoint guard comes back as the guard's error
          const stream = await client.responses.create(params, { signal }).catch((error: unknown) => {
            throw asEndpointError(error);
          });
          progress.opened = true;
          return messageFromResponse(await readResponsesStream(stream, emit, progress, signal), { cacheReads: !!key });
        },
        signal,
        options.retryDelayMs,
      );
    },
  };
}
