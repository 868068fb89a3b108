/**
 * A Responses API stream, read event by event into one `response`.
 *
 * Text deltas are handed on as they arrive. Each output item (a reasoning item, a message, a
 * function call) is taken whole from its `response.output_item.done` event: a function call's
 * `arguments` are complete there, and a reasoning item carries its final `encrypted_content`,
 * which may differ from the one its `added` event showed. The stream is complete at
 * `response.completed` or `response.incomplete`; `response.failed`, or an end without either, is an
 * error, never an answer.
 */

import type { StreamProgress } from "@harness/s03-streaming";
import { StreamError, type StreamEvent } from "@harness/s03-streaming";
import type { Emit } from "@harness/shared";
import type { Response, ResponseOutputItem, ResponseStreamEvent } from "openai/resources/responses/responses";

/** The event types that show content has started (after them, a failure is not sent again). */
const CONTENT_EVENTS = new Set([
  "response.output_item.added",
  "response.output_text.delta",
  "response.reasoning_summary_text.delta",
  "response.function_call_arguments.delta",
  "response.refusal.delta",
]);

/**
 * Read `stream` to its end and return the response it completed with, its output the items the
 * stream delivered.
 * Stops reading once `signal` aborts.
 * Contract: throws `StreamError` for `response.failed`, an `error` event, or a stream that ends
 * before `response.completed` / `response.incomplete`.
 */
export async function readResponsesStream(
  stream: AsyncIterable<ResponseStreamEvent>,
  emit: Emit<StreamEvent> = () => {},
  progress: StreamProgress = { opened: true, consumed: false },
  signal?: AbortSignal,
): Promise<Response> {
  const items: ResponseOutputItem[] = [];
  let started = false;
  let final: Response | undefined;
  for await (const event of stream) {
    if (signal?.aborted) break; // what the SDK had buffered is not shown
    if (!started) {
      started = true;
      emit({ type: "stream_start" });
    }
    if (CONTENT_EVENTS.has(event.type)) progress.consumed = true;
    switch (event.type) {
      case "response.output_text.delta":
        emit({ type: "text", text: event.delta });
        break;
      case "response.output_item.done":
        items[event.output_index] = event.item;
        break;
      case "response.completed":
      case "response.incomplete":
        final = event.response;
        break;
      case "response.failed":
        throw new StreamError(`the response failed: ${event.response.error?.message ?? "no reason given"}`);
      case "error":
        throw new StreamError(`the stream sent an error: ${event.message}`);
    }
  }
  if (!final) throw new StreamError("the stream ended without response.completed");
  const streamed = items.filter(Boolean);
  // the completed event repeats the output; a server that leaves it empty still streamed the items
  return { ...final, output: streamed.length > 0 ? streamed : final.output };
}
