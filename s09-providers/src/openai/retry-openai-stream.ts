/**
 * s03's rule for a failed stream, for the adapters that do not go through s03's `streamTurn`: a
 * stream that opened but failed before any of its content arrived is sent again; once content has
 * arrived, a failure is an error. The rule is s03's `retryUnstartedStream`; what this file adds is
 * how an OpenAI SDK's dropped connection is named.
 */
import { APIError as AnthropicApiError } from "@anthropic-ai/sdk";
import { retryUnstartedStream, StreamError, type StreamProgress } from "@harness/s03-streaming";
import { APIError as OpenAiApiError } from "openai";

/**
 * s03's rule (`retryUnstartedStream`), for the OpenAI formats: the same retries; a stream that
 * still broke off is a `StreamError` even when the SDK threw fetch's bare `TypeError`.
 * Contract: as s03's.
 */
export function retryOpenAiStream<T>(
  attempt: (progress: StreamProgress) => Promise<T>,
  signal: AbortSignal,
  retryDelayMs = 250,
): Promise<T | null> {
  return retryUnstartedStream(attempt, signal, retryDelayMs, brokeOff);
}

/** An error of the stream as the loop sees it: a dropped connection reaches here as fetch's bare `TypeError`. */
function brokeOff(error: unknown): unknown {
  if (error instanceof StreamError || error instanceof OpenAiApiError || error instanceof AnthropicApiError)
    return error;
  return new StreamError(`the stream broke off (${describe(error)})`, { cause: error });
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message.split("\n")[0] : String(error);
}
