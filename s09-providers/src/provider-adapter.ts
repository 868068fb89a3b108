/**
 * The seam: what the loop asks of a provider, whichever wire format it speaks.
 *
 * The loop builds one request in the course's own shape (the Messages API's: a system prompt, the
 * tools with their `input_schema`, the history as `MessageParam[]`) and asks for one streamed
 * turn. An adapter turns that request into its provider's wire format, reads the provider's stream,
 * and hands back the turn as a `Message`, the shape `AgentTurn.fromResponse` reads. The history
 * the loop keeps never changes shape with the provider.
 */
import type { MessageCreateParamsNonStreaming } from "@anthropic-ai/sdk/resources/messages";
import type { SendTurn } from "@harness/s03-streaming";
import type { PromptTooLong } from "@harness/s08-compaction";

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
   * Send one request as a stream and return the complete turn: s03's `SendTurn`, the loop's
   * seam for the model call. A plain function (no `this`), so main.ts hands it to s08's window as is.
   * Contract: returns `null` when `signal` aborted the call; throws `StreamError` (or the SDK's
   * `APIError`) when the stream is not complete, and never returns a partial turn. A stream that
   * failed before any content arrived is sent again, up to `STREAM_RETRIES` times.
   */
  readonly streamTurn: SendTurn;
  /**
   * Reads this provider's refusal of a history longer than the window off an error thrown by
   * `streamTurn` (`null` for any other), so s08's window compacts and sends again on every format.
   */
  readonly promptTooLong: (error: unknown) => PromptTooLong | null;
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
  /**
   * The OpenAI formats' `prompt_cache_key`, asked for at each request (s10: the session's id): sent
   * with it, their usage's `cached_tokens` are read as cache reads. (The Messages API takes markers.)
   */
  promptCacheKey?: () => string | undefined;
}
