/**
 * The API's answer to a history longer than the model's window, read off the error: a 400
 * `invalid_request_error` whose message reads "prompt is too long: 200251 tokens > 200000 maximum".
 */
import { APIError } from "@anthropic-ai/sdk";

/** The two numbers of a "prompt is too long" error. */
export interface PromptTooLong {
  /** Tokens the request held. */
  tokens: number;
  /** Tokens the model reads at most, when the refusal names it. */
  maximum?: number;
}

/** The numbers of a "prompt is too long" refusal; `null` for any other error. */
export function promptTooLong(error: unknown): PromptTooLong | null {
  if (!(error instanceof APIError) || error.status !== 400) return null;
  const body = error.error as { error?: { message?: unknown } } | undefined;
  const message = String(body?.error?.message ?? error.message);
  const match = /prompt is too long: (\d+) tokens > (\d+) maximum/.exec(message);
  return match ? { tokens: Number(match[1]), maximum: Number(match[2]) } : null;
}
