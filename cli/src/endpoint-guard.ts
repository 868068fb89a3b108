/**
 * What the client accepts from an endpoint, and how long it waits for it.
 *
 * A wrong ANTHROPIC_BASE_URL, or a proxy in the way, answers with something that is not the
 * Messages API: an HTML page with status 200, JSON of another API, or nothing at all. The SDK
 * parses whatever comes, so a loop would see an empty answer, or a stream that "ended without
 * message_stop", and a silent server would hold it for minutes. `createClient` gives every
 * client this middleware, so every chapter gets the checks with no code of its own:
 *
 * - a whole response: status 200 needs `application/json` holding a `Message`, complete within
 *   the timeout, counted from the request;
 * - a stream: `text/event-stream` whose first event is one the Messages API sends; no gap between
 *   its chunks, nor before its headers, may last longer than the timeout;
 * - an error status: its body is read within the timeout too, then the SDK makes its `APIError`
 *   (and retries what it retries).
 *
 * The checks name the Messages API by default; `api` gives them another wire format's (a
 * chapter's adapter for the `openai` SDK wraps the same guard around that client's `fetch`).
 *
 * It leaves the SDK's retries as they are for refused connections, 429, 5xx and 529. A response
 * that fails a check, or a wait that runs out, is an `EndpointError`, which the SDK does not retry:
 * the same endpoint would answer the same way, and a timeout retried three times is three timeouts.
 */
import { APIError, type Middleware } from "@anthropic-ai/sdk";

/** What went wrong with an endpoint. */
export type EndpointProblem =
  /** Nothing came back (not even headers) within the timeout. */
  | "no_response"
  /** The headers came, the body did not finish within the timeout. */
  | "slow_response"
  /** A stream said nothing for longer than the timeout. */
  | "silent_stream"
  /** What came back is not the Messages API. */
  | "not_messages_api";

/**
 * A response the client refuses, or a wait that ran out. Like the SDK's connection and timeout
 * errors, it is an `APIError` without a status: the call failed, and no retry of the SDK's or of
 * a loop's that keeps `APIError`s as they are will dress it up.
 * Contract: the message is one line naming the URL that was called and what came back.
 */
export class EndpointError extends APIError<undefined, undefined, undefined> {
  override name = "EndpointError";

  constructor(
    readonly problem: EndpointProblem,
    message: string,
  ) {
    super(undefined, undefined, message, undefined);
  }

  /**
   * The SDK decides whether an error is a timeout to retry by matching /timed? ?out/ in
   * `String(error)`; a body excerpt ("504 Gateway Timeout") must not make it retry this one.
   */
  override toString(): string {
    return `${this.name} [${this.problem}]`;
  }
}

/** How the guard checks and waits. */
export interface EndpointGuardOptions {
  /** The longest wait: for a whole response in total, for a stream between chunks. */
  timeoutMs: number;
  /** The largest whole response kept (default 32 MiB); a bigger one is refused. */
  maxBodyBytes?: number;
  /** The API the endpoint must speak (default `MESSAGES_API`). */
  api?: EndpointApi;
}

/** How the guard recognises an API's answers. */
export interface EndpointApi {
  /** Its name in an error ("Messages API"). */
  name: string;
  /** What its whole responses are called in an error ("message"). */
  responseName: string;
  /** True for a URL path whose whole (JSON) responses this API defines. */
  ownsPath(path: string): boolean;
  /** True for a parsed whole response of this API. */
  isResponse(body: unknown): boolean;
  /** True for a first stream event this API sends: its `event:` name (`null` without one) and its data. */
  isFirstEvent(name: string | null, data: string): boolean;
}

/** The events a Messages API stream may begin with. */
const FIRST_EVENTS = new Set(["message_start", "ping", "error"]);

/** The Messages API, as the guard checks it. */
export const MESSAGES_API: EndpointApi = {
  name: "Messages API",
  responseName: "message",
  ownsPath: (path) => /\/messages$/.test(path),
  isResponse: isMessage,
  isFirstEvent: (name) => FIRST_EVENTS.has(name ?? ""),
};
/** How much of a stream is held back while its first event is checked. */
const MAX_HEAD_BYTES = 64 * 1024;
/** How much of a refused body the error quotes, in characters. */
const EXCERPT_CHARS = 100;

/**
 * The middleware that checks every response and bounds every wait (give the SDK the same
 * `timeout`: its timer covers the wait for the headers).
 * Contract: throws `EndpointError` and never retries; an abort by the caller stays an abort.
 */
export function endpointGuard(options: EndpointGuardOptions): Middleware {
  const { timeoutMs, maxBodyBytes = 32 * 1024 * 1024, api = MESSAGES_API } = options;
  const seconds = `${Number((timeoutMs / 1000).toFixed(3))} s`;
  return async (request, next, ctx) => {
    const url = request.url.split("?")[0];
    const startedAt = Date.now();
    let response: Response;
    try {
      response = await next(request);
    } catch (error) {
      // the SDK's timer (same timeout) aborted a request that got no headers; the caller's abort stays
      if ((error as Error)?.name === "AbortError" && !ctx.options?.signal?.aborted) {
        throw new EndpointError("no_response", `no response from ${url} within ${seconds}`);
      }
      throw error;
    }
    const type = mediaType(response);

    if (ctx.options?.stream && response.ok) {
      if (type !== "text/event-stream" || !response.body) {
        const head = await readBody(response.body, EXCERPT_CHARS * 4, timeoutMs);
        const what = `answered ${response.status} ${type ?? "with no content type"}, not a ${api.name} stream`;
        throw notMessagesApi(url, what, head.bytes);
      }
      return new Response(watchStream(response.body, url, timeoutMs, seconds, api), response);
    }

    const body = await readBody(response.body, maxBodyBytes + 1, timeoutMs - (Date.now() - startedAt));
    if (body.end === "time") {
      throw new EndpointError("slow_response", `the response from ${url} did not finish within ${seconds}`);
    }
    if (body.end === "limit") {
      throw new EndpointError("not_messages_api", `${url} answered more than ${maxBodyBytes} bytes`);
    }
    // a Response with one of these statuses may not have a body, not even an empty one
    const whole = new Response([204, 205, 304].includes(response.status) ? null : body.bytes, response);
    if (!response.ok || !api.ownsPath(new URL(url).pathname)) return whole;
    const answered = `answered ${response.status} ${type ?? "with no content type"}`;
    if (type !== "application/json" && !type?.endsWith("+json")) {
      throw notMessagesApi(url, `${answered}, not a ${api.name} response`, body.bytes);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(decode(body.bytes));
    } catch {
      throw notMessagesApi(url, `${answered} that does not parse as JSON`, body.bytes);
    }
    if (!api.isResponse(parsed)) {
      throw notMessagesApi(url, `${answered} that is not a ${api.name} ${api.responseName}`, body.bytes);
    }
    return whole;
  };
}

/**
 * The body of a stream, passed on as it comes, with two checks: its first event must be one the
 * Messages API sends (held back until it is), and no wait for the next chunk may outlast `ms`.
 * The timer runs only while the reader waits, so a slow consumer is never taken for a silent server.
 */
function watchStream(
  body: ReadableStream<Uint8Array>,
  url: string,
  ms: number,
  seconds: string,
  api: EndpointApi,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let held: Uint8Array[] | null = []; // null once the first event passed its check
  let head = "";
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        const chunk = await readWithin(reader, ms);
        if (chunk === "time") {
          void reader.cancel().catch(() => {});
          throw new EndpointError("silent_stream", `the stream from ${url} was silent for ${seconds}`);
        }
        if (chunk.done) {
          for (const piece of held ?? []) controller.enqueue(piece);
          held = null;
          return controller.close();
        }
        if (!held) return controller.enqueue(chunk.value);
        held.push(chunk.value);
        head += decoder.decode(chunk.value, { stream: true });
        const first = firstEvent(head);
        if (first === undefined && head.length <= MAX_HEAD_BYTES) continue; // not complete yet
        if (first === undefined || !api.isFirstEvent(first.name, first.data)) {
          void reader.cancel().catch(() => {});
          const what =
            first === undefined
              ? "no complete event in its first 64 KiB"
              : first.name === null
                ? "a first event without a name"
                : `a first event named "${first.name}"`;
          const answered = `answered an event stream with ${what}, not a ${api.name} stream`;
          throw notMessagesApi(url, answered, new TextEncoder().encode(head));
        }
        for (const piece of held) controller.enqueue(piece);
        held = null;
        return;
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

/**
 * The first complete event in the start of a stream: `undefined` while none is complete; its name
 * is `null` when it has no `event:` field (the Anthropic SDK skips such events).
 */
function firstEvent(head: string): { name: string | null; data: string } | undefined {
  const blocks = head.replace(/\r\n?/g, "\n").split("\n\n");
  for (const block of blocks.slice(0, -1)) {
    const fields = block.split("\n").filter((line) => line !== "" && !line.startsWith(":"));
    if (fields.length === 0) continue; // a comment, a keep-alive
    const event = fields.find((line) => line.startsWith("event:"));
    const data = fields
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice("data:".length).trimStart())
      .join("\n");
    return { name: event === undefined ? null : event.slice("event:".length).trim(), data };
  }
  return undefined;
}

/** Read a body until its end, `limit` bytes, or `ms`; what was read and why the reading stopped. */
async function readBody(
  body: ReadableStream<Uint8Array> | null,
  limit: number,
  ms: number,
): Promise<{ bytes: Uint8Array<ArrayBuffer>; end: "done" | "limit" | "time" }> {
  if (!body) return { bytes: new Uint8Array(), end: "done" };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let end: "done" | "limit" | "time" = "limit";
  const deadline = Date.now() + ms;
  try {
    while (size < limit) {
      const chunk = await readWithin(reader, deadline - Date.now());
      if (chunk === "time" || chunk.done) {
        end = chunk === "time" ? "time" : "done";
        break;
      }
      chunks.push(chunk.value);
      size += chunk.value.length;
    }
  } finally {
    if (end !== "done") void reader.cancel().catch(() => {});
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return { bytes: bytes.subarray(0, limit), end };
}

/** One read, or `"time"` when `ms` passes first. */
async function readWithin(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  ms: number,
): Promise<Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>["read"]>> | "time"> {
  let timer: NodeJS.Timeout | undefined;
  const time = new Promise<"time">((resolve) => {
    timer = setTimeout(() => resolve("time"), Math.max(ms, 0));
  });
  try {
    return await Promise.race([reader.read(), time]);
  } finally {
    clearTimeout(timer);
  }
}

function notMessagesApi(url: string, what: string, bytes: Uint8Array): EndpointError {
  return new EndpointError("not_messages_api", `${url} ${what}: ${excerpt(bytes)}`);
}

/** The start of a body on one line, quoted, for an error message. */
function excerpt(bytes: Uint8Array): string {
  const text = decode(bytes.subarray(0, EXCERPT_CHARS * 4))
    .replace(/\s+/g, " ")
    .trim();
  if (text === "") return "an empty body";
  const chars = Array.from(text);
  return JSON.stringify(chars.length > EXCERPT_CHARS ? `${chars.slice(0, EXCERPT_CHARS).join("")}…` : text);
}

function decode(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes);
}

function mediaType(response: Response): string | undefined {
  return response.headers.get("content-type")?.split(";")[0].trim().toLowerCase() || undefined;
}

function isMessage(body: unknown): boolean {
  const b = body as { type?: unknown; content?: unknown } | null;
  return typeof b === "object" && b !== null && b.type === "message" && Array.isArray(b.content);
}
