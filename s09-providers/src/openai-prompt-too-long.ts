/**
 * The OpenAI formats' answer to a history longer than the model's window: a 400 whose code is
 * `context_length_exceeded`. Chat Completions names both numbers ("This model's maximum context
 * length is 128000 tokens. However, your messages resulted in 130512 tokens."); the Responses API
 * names neither ("Your input exceeds the context window of this model."). s08's keeper reads
 * either through this, as it reads the Messages API's "prompt is too long" through s08's own.
 */
import type { PromptTooLong } from "@harness/s08-compaction";
import { APIError } from "openai";

/** The numbers of a `context_length_exceeded` refusal (those it names); `null` for any other error. */
export function openAiPromptTooLong(error: unknown): PromptTooLong | null {
  if (!(error instanceof APIError) || error.status !== 400 || error.code !== "context_length_exceeded") return null;
  const message = String((error.error as { message?: unknown } | undefined)?.message ?? error.message);
  const maximum = /maximum context length is (\d+) tokens/.exec(message);
  const tokens = /resulted in (\d+) tokens/.exec(message);
  return {
    tokens: tokens ? Number(tokens[1]) : 0,
    ...(maximum ? { maximum: Number(maximum[1]) } : {}),
  };
}
