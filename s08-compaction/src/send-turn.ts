/**
 * How the keeper and the loop reach the model: one streamed call, the request in, the complete
 * turn out. Here it is s03's `streamTurn` on an Anthropic client; a function of this shape is all
 * the keeper needs, so whatever sends a turn this way can be kept inside its window too.
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { Message, MessageCreateParamsNonStreaming } from "@anthropic-ai/sdk/resources/messages";
import { type StreamObserver, streamTurn } from "@harness/s03-streaming";
import type { CompactionMode } from "./context-keeper.ts";
import { withServerBetas } from "./server-context-management.ts";

/**
 * Send one request as a stream and return the complete turn.
 * Contract: as s03's `streamTurn`: `null` when `signal` aborted the call; a stream that is not
 * complete throws, never a partial turn.
 */
export type SendTurn = (
  request: MessageCreateParamsNonStreaming,
  signal: AbortSignal,
  observer?: StreamObserver,
) => Promise<Message | null>;

/** s03's `streamTurn` on `client`; in `server` mode every request carries the context-management betas' header. */
export function sendTurnWith(client: Anthropic, mode?: CompactionMode): SendTurn {
  const sender = mode === "server" ? withServerBetas(client) : client;
  return (request, signal, observer) => streamTurn(sender, request, signal, observer);
}
