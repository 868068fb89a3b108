/**
 * s03's rule for a failed stream, for the adapters that do not go through s03's `streamTurn`: a
 * stream that opened but failed before any of its content arrived is sent again (nothing of it
 * was shown or used); once content has arrived, a failure is an error, because the same request
 * might answer differently. An HTTP error is the SDK's to retry, and is thrown as it comes.
 */
import { APIError as AnthropicApiError } from "@anthropic-ai/sdk";
import { STREAM_RETRIES, StreamError, sleep } from "@harness/s03-streaming";
import { APIError as OpenAiApiError } from "openai";

/** What one attempt reports as it goes: the stream opened (HTTP 200), its content started. */
export interface StreamProgress {
  opened: boolean;
  consumed: boolean;
}

/**
 * Run `attempt` until it returns, sending it again while it fails before its content.
 * Contract: returns `null` when `signal` aborted; a connection that broke after the stream opened
 * is a `StreamError`; an API error (an HTTP error, an error event) is thrown as it is.
 */
export async function retryUnstartedStream<T>(
  attempt: (progress: StreamProgress) => Promise<T>,
  signal: AbortSignal,
  retryDelayMs = 250,
): Promise<T | null> {
  for (let n = 0; ; n++) {
    const progress: StreamProgress = { opened: false, consumed: false };
    try {
      const result = await attempt(progress);
      return signal.aborted ? null : result;
    } catch (error) {
      if (signal.aborted) return null;
      if (!progress.opened) throw error;
      if (progress.consumed) {
        throw new StreamError(`the stream failed after its content had started (${describe(error)})`, { cause: error });
      }
      if (n >= STREAM_RETRIES) throw brokeOff(error);
      await sleep(retryDelayMs * 2 ** n, signal);
    }
  }
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
