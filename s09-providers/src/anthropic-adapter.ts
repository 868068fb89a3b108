/**
 * The Messages API behind the seam: s03's `streamTurn`, as it is. The course's request is already
 * in this format's words, so the only work is to leave out what another provider put in the
 * history (its reasoning) and to rewrite its tool call ids the API would not take.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { streamTurn } from "@harness/s03-streaming";
import { promptTooLong } from "@harness/s08-compaction";
import { historyForFormat, noticeOnce } from "./history-for-format.ts";
import type { AdapterOptions, ProviderAdapter } from "./provider-adapter.ts";
import { withAnthropicIds } from "./with-anthropic-ids.ts";

/** An adapter that streams turns from the Messages API through `client`. */
export function anthropicAdapter(client: Anthropic, options: AdapterOptions = {}): ProviderAdapter {
  const drop = noticeOnce(options.notice);
  return {
    format: "anthropic",
    promptTooLong,
    streamTurn: (request, signal, emit) =>
      streamTurn(
        client,
        { ...request, messages: withAnthropicIds(historyForFormat(request.messages, "anthropic", drop)) },
        signal,
        emit,
        options.retryDelayMs,
      ),
  };
}
