/**
 * Streaming: one model call, consumed event by event, rebuilt into a `Message`.
 *
 * Text is handed on as it arrives. A tool call's input grows delta by delta, and is parsed ONCE,
 * when its block stops: a tool never runs from a partial object. (The SDK's
 * `messages.stream` helper parses partial JSON forgivingly, so `{"command": "rm x"` without its
 * closing brace would come out runnable; that is why this file reads the raw events.)
 *
 * A stream that errors, is cut, or ends without `message_stop` is an error, never an answer; it
 * is sent again only when it failed before any content arrived.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { APIError } from "@anthropic-ai/sdk";
import type { Message, MessageCreateParamsNonStreaming } from "@anthropic-ai/sdk/resources/messages";
import { type Emit, MAX_INPUT_DEPTH, nestedDeeperThan } from "@harness/shared";

/** What a stream reports as it goes (for display and timing; the result is the returned message). */
export type StreamEvent =
  /** The first event of the response arrived: the model has started answering. */
  | { type: "stream_start" }
  /** A piece of the turn's text, as it arrives. */
  | { type: "text"; text: string };

/**
 * One model turn: the request in, the complete message out, its progress told to `emit`. The loop
 * calls this seam for every model call; s03's is `streamTurn` on a client (`sendStreamed`), and a
 * later chapter wraps it or puts another behind it.
 * Contract: `null` when `signal` aborted the call; a turn that is not complete throws, never a
 * partial message.
 */
export type SendTurn = (
  request: MessageCreateParamsNonStreaming,
  signal: AbortSignal,
  emit?: Emit<StreamEvent>,
) => Promise<Message | null>;

/** `streamTurn` on `client`, as the loop's seam. */
export function sendStreamed(client: Anthropic, retryDelayMs?: number): SendTurn {
  return (request, signal, emit) => streamTurn(client, request, signal, emit, retryDelayMs);
}

/** The stream failed: an `error` event, a cut connection, or no `message_stop`. */
export class StreamError extends Error {
  override name = "StreamError";
}

type Block = Record<string, unknown> & { type: string };

/** Times a stream that failed before any of its content arrived is sent again. */
export const STREAM_RETRIES = 2;

/**
 * Send one request as a stream and return the complete message.
 * A stream that opened but failed before any content block started (an `error` event, a cut,
 * an early end) is sent again, up to `STREAM_RETRIES` times: nothing of it was shown or used.
 * Once content has arrived, a failure is an error, because the same request might answer
 * differently. An HTTP error is the SDK's to retry, and is thrown as it comes.
 * Contract: throws `StreamError` (or the SDK's `APIError`) when the stream is not complete, and
 * returns `null` when `signal` aborted it; a partial message is never returned.
 */
export async function streamTurn(
  client: Anthropic,
  params: MessageCreateParamsNonStreaming,
  signal: AbortSignal,
  emit: Emit<StreamEvent> = () => {},
  retryDelayMs = 250,
): Promise<Message | null> {
  return retryUnstartedStream((progress) => streamOnce(client, params, signal, emit, progress), signal, retryDelayMs);
}

/** What one attempt reports as it goes: the stream opened (HTTP 200), its content started. */
export interface StreamProgress {
  opened: boolean;
  consumed: boolean;
}

/**
 * The rule for a failed stream, for any wire format: run `attempt` until it returns, sending it
 * again (up to `STREAM_RETRIES` times, waiting longer each time) while it fails after the stream
 * opened and before its content; once content has arrived, a failure is a `StreamError`. An HTTP
 * error (the stream never opened) is the SDK's to retry, and is thrown as it comes; so is the last
 * failure, as `lastError` gives it (a format whose SDK throws a bare TypeError for a dropped
 * connection makes it a `StreamError` there).
 * Contract: returns `null` when `signal` aborted.
 */
export async function retryUnstartedStream<T>(
  attempt: (progress: StreamProgress) => Promise<T | null>,
  signal: AbortSignal,
  retryDelayMs = 250,
  lastError: (error: unknown) => unknown = (error) => error,
): Promise<T | null> {
  for (let n = 0; ; n++) {
    const progress: StreamProgress = { opened: false, consumed: false };
    try {
      const result = await attempt(progress);
      return signal.aborted ? null : result;
    } catch (error) {
      if (signal.aborted) return null;
      if (!progress.opened) throw error; // an HTTP error: the SDK has already retried what it should
      if (progress.consumed) {
        throw new StreamError(`the stream failed after its content had started (${describe(error)})`, { cause: error });
      }
      if (n >= STREAM_RETRIES) throw lastError(error);
      await sleep(retryDelayMs * 2 ** n, signal);
    }
  }
}

/** One attempt; `progress` says whether the stream opened (HTTP 200) and whether content arrived. */
async function streamOnce(
  client: Anthropic,
  params: MessageCreateParamsNonStreaming,
  signal: AbortSignal,
  emit: Emit<StreamEvent>,
  progress: StreamProgress,
): Promise<Message | null> {
  let message: Message | undefined;
  const blocks: Block[] = [];
  const rawInput: string[] = []; // tool input text, by block index, until its block stops
  let started = false;
  let complete = false;

  try {
    const stream = await client.messages.create({ ...params, stream: true }, { signal });
    progress.opened = true;
    for await (const event of stream) {
      if (!started) {
        started = true;
        emit({ type: "stream_start" });
      }
      switch (event.type) {
        case "message_start":
          message = { ...event.message, content: [] };
          break;
        case "content_block_start":
          progress.consumed = true;
          blocks[event.index] = { ...event.content_block } as Block;
          if ("input" in event.content_block) rawInput[event.index] = ""; // tool_use, server_tool_use
          break;
        case "content_block_delta": {
          const block = blocks[event.index];
          const delta = event.delta;
          if (!block) throw new StreamError(`a delta for block ${event.index}, which never started`);
          if (delta.type === "text_delta") {
            block.text = `${block.text ?? ""}${delta.text}`;
            emit({ type: "text", text: delta.text });
          } else if (delta.type === "input_json_delta") {
            rawInput[event.index] = `${rawInput[event.index] ?? ""}${delta.partial_json}`;
          } else if (delta.type === "thinking_delta") {
            block.thinking = `${block.thinking ?? ""}${delta.thinking}`;
          } else if (delta.type === "signature_delta") {
            block.signature = delta.signature;
          } else if (delta.type === "citations_delta") {
            block.citations = [...((block.citations as unknown[]) ?? []), delta.citation];
          } else {
            // a delta newer than this code (a server compaction's compaction_delta): it carries the
            // block's final fields, which go back to the API unchanged
            const { type: _, ...fields } = delta as unknown as Record<string, unknown>;
            Object.assign(block, fields);
          }
          break;
        }
        case "content_block_stop": {
          const block = blocks[event.index];
          // the one parse of a tool's input; text that does not parse stays a string,
          // which AgentTurn turns into an invalid-arguments error instead of a call
          if (block && rawInput[event.index] !== undefined) block.input = parseToolInput(rawInput[event.index]);
          break;
        }
        case "message_delta":
          if (!message) throw new StreamError("message_delta before message_start");
          // stop_reason, stop_sequence, and fields newer than this SDK (stop_details)
          Object.assign(message, definedOnly(event.delta));
          message.usage = { ...message.usage, ...definedOnly(event.usage) };
          break;
        case "message_stop":
          complete = true;
          break;
      }
    }
  } catch (error) {
    if (signal.aborted) return null;
    // a dropped connection reaches here as fetch's bare `TypeError: terminated`: say what broke
    if (progress.opened && !(error instanceof APIError) && !(error instanceof StreamError)) {
      throw new StreamError(`the stream broke off (${describe(error)})`, { cause: error });
    }
    throw error;
  }
  if (signal.aborted) return null; // the SDK ends an aborted stream quietly
  if (!message || !complete) throw new StreamError("the stream ended without message_stop");
  return { ...message, content: blocks.filter(Boolean) as unknown as Message["content"] };
}

/**
 * Parse a tool's complete input text: `{}` when empty, the raw text when it is not a JSON object
 * or nests deeper than `MAX_INPUT_DEPTH` (nothing that walks a message, a trace or a transcript
 * could hold it: AgentTurn makes it an invalid-arguments error).
 */
export function parseToolInput(raw: string): unknown {
  if (raw.trim() === "") return {};
  try {
    const value: unknown = JSON.parse(raw);
    if (nestedDeeperThan(value, MAX_INPUT_DEPTH)) return raw;
    return typeof value === "object" && value !== null && !Array.isArray(value) ? value : raw;
  } catch {
    return raw;
  }
}

function definedOnly(usage: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(usage).filter(([, v]) => v !== null && v !== undefined));
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message.split("\n")[0] : String(error);
}

/** Wait `ms` milliseconds, or less when `signal` aborts first (the wait before a stream is sent again). */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}
