/**
 * The seam: what the loop asks of a provider, whichever wire format it speaks.
 *
 * The loop builds one request in the course's own shape (the Messages API's: a system prompt, the
 * tools with their `input_schema`, the history as `MessageParam[]`) and asks for one streamed
 * turn. An adapter turns that request into its provider's wire format, reads the provider's stream,
 * and hands back the turn as a `Message`, the shape `AgentTurn.fromResponse` reads. The history
 * the loop keeps never changes shape with the provider.
 */
import type { Message, MessageCreateParamsNonStreaming } from "@anthropic-ai/sdk/resources/messages";
import type { StreamObserver } from "@harness/s03-streaming";

/** The wire formats the course speaks, one adapter each (the `--provider` values). */
export type WireFormat = "anthropic" | "openai-chat" | "openai-responses";

/** Every wire format, in the order the help lists them. */
export const WIRE_FORMATS: readonly WireFormat[] = ["anthropic", "openai-chat", "openai-responses"];

/** One turn's request, in the course's shape whatever the provider (the loop builds it once). */
export type TurnRequest = MessageCreateParamsNonStreaming;

/** One provider behind the seam. */
export interface ProviderAdapter {
  /** The wire format this adapter speaks. */
  readonly format: WireFormat;
  /**
   * Send one request as a stream and return the complete turn, as s03's `streamTurn` does.
   * Contract: returns `null` when `signal` aborted the call; throws `StreamError` (or the SDK's
   * `APIError`) when the stream is not complete, and never returns a partial turn. A stream that
   * failed before any content arrived is sent again, up to `STREAM_RETRIES` times.
   */
  streamTurn(request: TurnRequest, signal: AbortSignal, observer?: StreamObserver): Promise<Message | null>;
}

/** What every adapter may be told at construction. */
export interface AdapterOptions {
  /**
   * Told, once per kind, when content of the history is not sent because this format cannot read
   * it (another provider's reasoning); the CLI prints it on stderr.
   */
  notice?: (line: string) => void;
  /** Milliseconds before the first retry of a stream that failed before its content (default 250). */
  retryDelayMs?: number;
}
