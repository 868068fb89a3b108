/**
 * Chat Completions behind the seam (OpenAI, DeepSeek, xAI, vLLM, llama.cpp, Ollama's `/v1`, LM
 * Studio and most servers that say "OpenAI-compatible"), through the official `openai` SDK:
 * the request translated (`toChatRequest`), the stream read (`readChatStream`), the answer mapped
 * (`messageFromChat`), with s03's rule for a stream that fails before its content.
 */
import type OpenAI from "openai";
import { historyForFormat, noticeOnce } from "../history-for-format.ts";
import type { AdapterOptions, ProviderAdapter } from "../provider-adapter.ts";
import { messageFromChat } from "./message-from-chat.ts";
import { asEndpointError } from "./openai-endpoint-guard.ts";
import { openAiPromptTooLong } from "./openai-prompt-too-long.ts";
import { readChatStream } from "./read-chat-stream.ts";
import { retryOpenAiStream } from "./retry-openai-stream.ts";
import { toChatRequest } from "./to-chat-request.ts";

/** An adapter that streams turns from a Chat Completions endpoint through `client`. */
export function openAiChatAdapter(client: OpenAI, options: AdapterOptions = {}): ProviderAdapter {
  const drop = noticeOnce(options.notice);
  return {
    format: "openai-chat",
    promptTooLong: openAiPromptTooLong,
    streamTurn: (request, signal, emit = () => {}) => {
      const key = options.promptCacheKey?.();
      const params = {
        ...toChatRequest({ ...request, messages: historyForFormat(request.messages, "openai-chat", drop) }),
        ...(key ? { prompt_cache_key: key } : {}),
      };
      return retryOpenAiStream(
        async (progress) => {
          // a refusal of the endpoint guard comes back as the guard's error
          const stream = await client.chat.completions.create(params, { signal }).catch((error: unknown) => {
            throw asEndpointError(error);
          });
          progress.opened = true;
          return messageFromChat(await readChatStream(stream, emit, progress, signal), { cacheReads: !!key });
        },
        signal,
        options.retryDelayMs,
      );
    },
  };
}
