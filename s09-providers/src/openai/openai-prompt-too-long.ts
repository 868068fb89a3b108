/**
 * The OpenAI formats' answer to a history longer than the model's window: a 400, worded by each
 * server its own way. OpenAI's code is `context_length_exceeded`: Chat Completions names both
 * numbers ("This model's maximum context length is 128000 tokens. However, your messages resulted
 * in 130512 tokens."), the Responses API neither ("Your input exceeds the context window of this
 * model."). vLLM sends the same sentence as Chat Completions without the code ("… your request has
 * 33012 input tokens"); llama.cpp's `llama-server` its own type, `exceed_context_size_error`, with
 * `n_ctx` and `n_prompt_tokens`. s08's window reads any of them through this, as it reads the
 * Messages API's "prompt is too long" through s08's own.
 */
import type { PromptTooLong } from "@harness/s08-compaction";
import { APIError } from "openai";

/** The numbers of a refusal as too long (those it names); `null` for any other error. */
export function openAiPromptTooLong(error: unknown): PromptTooLong | null {
  if (!(error instanceof APIError) || error.status !== 400) return null;
  const body = (error.error ?? {}) as { message?: unknown; type?: unknown; n_ctx?: unknown; n_prompt_tokens?: unknown };
  if (body.type === "exceed_context_size_error") {
    return { tokens: Number(body.n_prompt_tokens) || 0, ...window(Number(body.n_ctx)) };
  }
  const message = String(body.message ?? error.message);
  const maximum = /maximum context length is (\d+) tokens/.exec(message);
  if (error.code !== "context_length_exceeded" && !maximum) return null;
  const tokens = /(?:resulted in|has|requested) (\d+) (?:input )?tokens/.exec(message);
  return { tokens: tokens ? Number(tokens[1]) : 0, ...window(Number(maximum?.[1])) };
}

/** The window's size, when the refusal names one. */
function window(maximum: number): { maximum?: number } {
  return Number.isInteger(maximum) && maximum > 0 ? { maximum } : {};
}
