/**
 * The scripted model: a deterministic stand-in for Claude that speaks the Messages API.
 *
 * It answers `POST /v1/messages` with the same JSON bodies and SSE streams the API sends, so the
 * real `@anthropic-ai/sdk` client parses everything it produces, through the SDK's `fetch` option
 * (in process) or over HTTP (`startScriptedServer`). The same replies go out in two more wire
 * formats, for the `openai` SDK: `POST /v1/chat/completions` and `POST /v1/responses`. It checks each request the way the API would
 * (a missing key, an invalid history) and records it, so a test can assert on what a loop sent.
 * Each request takes the next step of its script; when the script is empty, it asks its brain.
 */
import Anthropic, { type ClientOptions } from "@anthropic-ai/sdk";
import type { MessageCreateParams } from "@anthropic-ai/sdk/resources/messages";
import { historyProblems } from "@harness/shared";
import { withoutCacheControl } from "./caching/cache-prefix.ts";
import { type CacheUse, PromptCache, type PromptCacheOptions } from "./caching/prompt-cache.ts";
import { type ManagedRequest, manageContext } from "./compaction/context-management.ts";
import { ChatCompletionsWire, type WireRequest } from "./openai/openai-chat-wire.ts";
import { ResponsesWire } from "./openai/openai-responses-wire.ts";
import type { ScriptedFault, ScriptedReply, ScriptStep } from "./script.ts";
import { encodeSse, estimateInputTokens, messageBody, type SseEvent, streamEvents, type WireContext } from "./wire.ts";

/** The wire formats the scripted model speaks, by the API whose endpoint it answers. */
export type ScriptedApi = "messages" | "chat-completions" | "responses";

/** A request the scripted model received. */
export interface RecordedRequest {
  method: string;
  path: string;
  /** Header names are lower case. */
  headers: Record<string, string>;
  /** The parsed JSON body, as the Messages API would have it (translated from the other formats). */
  body: MessageCreateParams;
  /** The API the request was sent to. */
  api: ScriptedApi;
  /** The parsed JSON body as it was sent, in its own format. */
  raw: unknown;
}

/** Decides the reply to a request the script does not cover (the demos' rule-based brains); `wire` says which API was asked. */
export type Brain = (request: MessageCreateParams, wire?: { api: ScriptedApi }) => ScriptStep;

/** How to build a scripted model. */
export interface ScriptedModelOptions {
  /** Steps answered in order, one per request (a retried request takes a step too). */
  script?: ScriptStep[];
  /** Asked for a reply once the script is empty. Without one, an empty script is a 400 error. */
  brain?: Brain;
  /**
   * The model id reported in responses (default `SCRIPTED_MODEL_ID`): never the Claude id the
   * request asked for, so a response or a trace never passes the scripted model off as Claude.
   */
  model?: string;
  /**
   * Input tokens a request may hold (estimated, about four characters a token); a longer one is
   * refused as the API refuses it: 400 "prompt is too long: N tokens > M maximum" (the OpenAI
   * formats: their `context_length_exceeded`). Default: no limit.
   */
  contextWindow?: number;
  /**
   * The prompt cache's clock and minimum (caching/prompt-cache.ts). A Messages API request with
   * `cache_control` reads and writes the cache, and an OpenAI one with `prompt_cache_key`; any
   * other is answered without cache counts.
   */
  cache?: PromptCacheOptions;
}

/** The model id the scripted model answers under, whatever model the request named. */
export const SCRIPTED_MODEL_ID = "scripted-model";

/** A deterministic stand-in for the Messages API. */
export class ScriptedModel {
  /** Every request received, in order, retries included. */
  readonly requests: RecordedRequest[] = [];
  private readonly script: ScriptStep[];
  private readonly brain?: Brain;
  private readonly model?: string;
  private readonly chat = new ChatCompletionsWire();
  private readonly responses = new ResponsesWire();
  private readonly contextWindow?: number;
  /** The prompt cache this model keeps across its requests. */
  readonly promptCache: PromptCache;

  constructor(options: ScriptedModelOptions = {}) {
    this.script = [...(options.script ?? [])];
    this.brain = options.brain;
    this.model = options.model;
    this.contextWindow = options.contextWindow;
    this.promptCache = new PromptCache(options.cache);
  }

  /** Append steps to the script. */
  push(...steps: ScriptStep[]): void {
    this.script.push(...steps);
  }

  /** Steps not used yet. */
  get pending(): number {
    return this.script.length;
  }

  /** A `fetch` that answers from this model; give it to the SDK's `fetch` option. */
  readonly fetch = (input: string | URL | Request, init?: RequestInit): Promise<Response> =>
    // the caller's own signal: a Request's copy of it stops following it once the Request is
    // garbage collected (undici links the two weakly), and a hanging reply would then never end
    this.handle(new Request(input, init), init?.signal ?? undefined);

  /**
   * An SDK client wired to this model in process. The key is a dummy: the SDK refuses to send
   * without one, and the scripted model only checks that one was sent.
   */
  client(options: Partial<ClientOptions> = {}): Anthropic {
    return new Anthropic({
      apiKey: "scripted-model-key",
      baseURL: "http://scripted-model.invalid",
      fetch: this.fetch,
      ...options,
    });
  }

  /** Answer one HTTP request; aborting `signal` (by default the request's own) ends a reply in progress. */
  async handle(request: Request, signal: AbortSignal = request.signal): Promise<Response> {
    const url = new URL(request.url);
    const api = apiOf(url.pathname);
    if (request.method !== "POST" || !api) {
      return errorResponse("messages", 404, `scripted model: no route for ${request.method} ${url.pathname}`);
    }
    const headers = Object.fromEntries(request.headers);
    let raw: unknown;
    try {
      raw = await request.json();
    } catch {
      return errorResponse(api, 400, "scripted model: the request body is not JSON");
    }
    // the other formats are read back into the Messages API's shape, after their own checks
    const read: WireRequest =
      api === "messages"
        ? { request: raw as MessageCreateParams }
        : (api === "responses" ? this.responses : this.chat).read(raw);
    const body = "request" in read ? read.request : (raw as MessageCreateParams);
    this.requests.push({ method: request.method, path: url.pathname, headers, body, api, raw });
    const n = this.requests.length;

    if (!headers["x-api-key"] && !headers.authorization) {
      return errorResponse(api, 401, api === "messages" ? "x-api-key header is required" : MISSING_KEY);
    }
    const invalid = "problem" in read ? read.problem : requestProblem(body, api);
    if (invalid) return errorResponse(api, 400, invalid);
    // what the model reads: the history after the server's context management (context-management.ts)
    const managed = manageContext(body, headers);
    if (typeof managed === "string") return errorResponse(api, 400, managed);
    const cacheProblem = api === "messages" ? this.promptCache.problem(managed.body as never) : null;
    if (cacheProblem) return errorResponse(api, 400, cacheProblem);
    // markers are not content: a request counts the same with them or without
    const inputTokens = estimateInputTokens(withoutCacheControl(managed.body));
    if (this.contextWindow !== undefined && inputTokens > this.contextWindow) {
      return tooLongResponse(api, inputTokens, this.contextWindow);
    }

    const step = managed.pause ? undefined : (this.script.shift() ?? this.brain?.(managed.body, { api }));
    if (!step && !managed.pause) {
      return errorResponse(api, 400, `scripted model: no scripted reply left for request #${n}`);
    }

    // ids numbered after any the history holds: a conversation resumed by a new process keeps them unique
    const id = String(Math.max(n, lastIdNumber(body.messages) + 1)).padStart(4, "0");
    const ctx: WireContext = {
      messageId: `msg_scripted_${id}`,
      model: this.model ?? SCRIPTED_MODEL_ID,
      toolUseId: (i) => `toolu_scripted_${id}_${i}`,
      inputTokens,
      contextManagement: managed.response,
      cache: step?.kind === "http_error" || step?.kind === "hang" ? undefined : this.useCache(api, raw, managed.body),
    };
    return this.answer(api, raw, withCompaction(step, managed), body.stream === true, ctx, signal);
  }

  /** What the request reads from and writes to the prompt cache, when it asks for it. */
  private useCache(api: ScriptedApi, raw: unknown, body: MessageCreateParams): CacheUse | undefined {
    if (api === "messages") {
      const use = this.promptCache.messages(body as never, body.model);
      return use === null || typeof use === "string" ? undefined : use;
    }
    const key = (raw as { prompt_cache_key?: unknown }).prompt_cache_key;
    return typeof key === "string" && key !== "" ? this.promptCache.openAi(body as never, body.model, key) : undefined;
  }

  /** The reply (or fault) in the wire format of `api`. */
  private answer(
    api: ScriptedApi,
    raw: unknown,
    step: ScriptStep,
    stream: boolean,
    ctx: WireContext,
    signal: AbortSignal,
  ): Promise<Response> {
    const includeUsage =
      (raw as { stream_options?: { include_usage?: unknown } }).stream_options?.include_usage === true;
    const wire: Wire = {
      api,
      body: (reply) =>
        api === "messages"
          ? messageBody(reply, ctx)
          : api === "chat-completions"
            ? this.chat.body(reply, ctx)
            : this.responses.body(reply, ctx),
      sse: (events) =>
        api === "messages"
          ? events.map(encodeSse)
          : api === "chat-completions"
            ? this.chat.sse(events, ctx, includeUsage)
            : this.responses.sse(events, ctx),
    };
    return answer(step, stream, ctx, signal, wire);
  }
}

/** One wire format: how a reply goes out whole, and how the events of its stream go out. */
interface Wire {
  api: ScriptedApi;
  body(reply: ScriptedReply): Record<string, unknown>;
  sse(events: SseEvent[]): string[];
}

function apiOf(path: string): ScriptedApi | null {
  if (path.endsWith("/v1/messages")) return "messages";
  if (path.endsWith("/chat/completions")) return "chat-completions";
  if (path.endsWith("/responses")) return "responses";
  return null;
}

const MISSING_KEY =
  "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).";

async function answer(
  step: ScriptStep,
  stream: boolean,
  ctx: WireContext,
  signal: AbortSignal,
  wire: Wire,
): Promise<Response> {
  if (step.kind === "hang") {
    await sleep(Number.POSITIVE_INFINITY, signal);
    throw abortError();
  }
  if (step.kind === "http_error") {
    const extra: Record<string, string> = {};
    if (step.retryAfterMs !== undefined) {
      extra["retry-after-ms"] = String(step.retryAfterMs);
      extra["retry-after"] = String(Math.ceil(step.retryAfterMs / 1000));
    }
    return errorResponse(wire.api, step.status, step.message ?? defaultMessage(step.status), extra);
  }
  const reply = step.kind === "reply" ? step : (step.reply ?? FAULT_REPLY);
  await sleep(reply.delayMs ?? 0, signal);
  if (!stream) {
    if (step.kind === "sse_error") return errorResponse(wire.api, 500, "Internal server error");
    if (step.kind === "cut") throw new TypeError("terminated: the scripted connection was cut");
    return jsonResponse(200, wire.body(reply));
  }
  const events = wire.sse(faultedEvents(streamEvents(reply, ctx), step));
  return new Response(sseBody(events, reply.eventDelayMs ?? 0, signal, step.kind === "cut"), {
    status: 200,
    headers: { "content-type": "text/event-stream", "request-id": `req_${ctx.messageId}` },
  });
}

/** The step with the server's compaction block first, when the request triggered one (alone, when it pauses). */
function withCompaction(step: ScriptStep | undefined, managed: ManagedRequest): ScriptStep {
  if (!managed.compaction) return step as ScriptStep;
  const block = { type: "other" as const, block: managed.compaction };
  if (managed.pause || !step) return { kind: "reply", content: [block], stopReason: "compaction" };
  return step.kind === "reply" ? { ...step, content: [block, ...step.content] } : step;
}

const FAULT_REPLY: ScriptedReply = {
  kind: "reply",
  content: [{ type: "text", text: "This reply is interrupted by a scripted fault before it ends." }],
};

function faultedEvents(events: SseEvent[], step: ScriptedReply | ScriptedFault): SseEvent[] {
  switch (step.kind) {
    case "sse_error":
      return [
        ...events.slice(0, step.afterEvents),
        {
          event: "error",
          data: { type: "error", error: { type: step.errorType ?? "overloaded_error", message: "Overloaded" } },
        },
      ];
    case "cut":
      return events.slice(0, step.afterEvents);
    case "no_message_stop":
      return events.filter((e) => e.event !== "message_stop");
    default:
      return events;
  }
}

/** The stream's text, one piece per event (a piece may be empty), with `delayMs` between pieces. */
function sseBody(events: string[], delayMs: number, signal: AbortSignal, cut: boolean): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let i = 0;
  return new ReadableStream({
    async pull(controller) {
      try {
        if (i > 0) await sleep(delayMs, signal);
      } catch (error) {
        controller.error(error);
        return;
      }
      if (i < events.length) {
        controller.enqueue(encoder.encode(events[i++]));
      } else if (cut) {
        controller.error(new TypeError("terminated: the scripted connection was cut"));
      } else {
        controller.close();
      }
    },
  });
}

/** The highest number in the history's scripted tool_use ids (`toolu_scripted_0003_0` → 3), 0 for none. */
function lastIdNumber(messages: MessageCreateParams["messages"]): number {
  let highest = 0;
  for (const message of messages) {
    if (typeof message.content === "string") continue;
    for (const block of message.content) {
      const n = block.type === "tool_use" ? /^toolu_scripted_(\d+)_/.exec(block.id)?.[1] : undefined;
      if (n) highest = Math.max(highest, Number(n));
    }
  }
  return highest;
}

/**
 * What the API's schema refuses before any rule of the history: a message that is not an object,
 * a role it does not know, a content block that is not an object. A loop's history is typed and
 * never has one; a request body is untyped JSON, so the wire checks it, in the API's words.
 */
function shapeProblem(messages: unknown[]): string | null {
  const notObject = (value: unknown) => typeof value !== "object" || value === null;
  const objectWanted = "Input should be a valid dictionary or object to extract fields from";
  for (const [i, message] of messages.entries()) {
    if (notObject(message)) return `messages.${i}: ${objectWanted}`;
    const { role, content } = message as { role?: unknown; content?: unknown };
    if (role !== "user" && role !== "assistant") return `messages.${i}.role: Input should be 'user' or 'assistant'`;
    const k = Array.isArray(content) ? content.findIndex(notObject) : -1;
    if (k !== -1) return `messages.${i}.content.${k}: ${objectWanted}`;
  }
  return null;
}

function requestProblem(body: MessageCreateParams, api: ScriptedApi): string | null {
  if (typeof body !== "object" || body === null) return "the body must be a JSON object";
  if (typeof body.model !== "string" || body.model === "") return "model: Field required";
  if (typeof body.max_tokens !== "number") return "max_tokens: Field required";
  if (!Array.isArray(body.messages)) return "messages: Field required";
  const shape = shapeProblem(body.messages);
  if (shape) return shape;
  // the API names the first problem it finds, in its own words (historyProblems uses them)
  const [problem] = historyProblems(body.messages);
  if (problem) return problem;
  // ids another provider gave (Kimi's `functions.bash:0`) are not the Messages API's
  for (const [i, message] of api === "messages" ? body.messages.entries() : []) {
    if (typeof message.content === "string") continue;
    for (const [k, block] of message.content.entries()) {
      if (block.type === "tool_use" && !/^[a-zA-Z0-9_-]+$/.test(String(block.id))) {
        return `messages.${i}.content.${k}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'`;
      }
    }
  }
  for (const tool of body.tools ?? []) {
    const t = tool as { name?: unknown; input_schema?: unknown; type?: unknown };
    if (t.type === undefined && (typeof t.name !== "string" || typeof t.input_schema !== "object")) {
      return "tools: each tool needs a name and an input_schema";
    }
  }
  return null;
}

const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  529: "overloaded_error",
};

function defaultMessage(status: number): string {
  if (status === 401) return "invalid x-api-key";
  if (status === 429) return "Number of request tokens has exceeded your per-minute rate limit";
  if (status === 529) return "Overloaded";
  return "Internal server error";
}

/**
 * The API's error body: `{"type":"error","error":{"type":…,"message":…},"request_id":…}`, or for
 * the OpenAI formats `{"error":{"message":…,"type":…,"param":null,"code":null}}`.
 */
function errorResponse(
  api: ScriptedApi,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): Response {
  if (api !== "messages") {
    const type = status === 429 ? "rate_limit_exceeded" : status >= 500 ? "server_error" : "invalid_request_error";
    return jsonResponse(status, { error: { message, type, param: null, code: null } }, headers);
  }
  const type = ERROR_TYPES[status] ?? "api_error";
  return jsonResponse(status, { type: "error", error: { type, message }, request_id: REQUEST_ID }, headers);
}

/**
 * A request over the window, refused in each API's words: the Messages API names both numbers;
 * Chat Completions says `context_length_exceeded` with both; the Responses API names neither.
 */
function tooLongResponse(api: ScriptedApi, tokens: number, maximum: number): Response {
  if (api === "messages") return errorResponse(api, 400, `prompt is too long: ${tokens} tokens > ${maximum} maximum`);
  const message =
    api === "chat-completions"
      ? `This model's maximum context length is ${maximum} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`
      : "Your input exceeds the context window of this model. Please adjust your input and try again.";
  const param = api === "chat-completions" ? "messages" : "input";
  return jsonResponse(400, {
    error: { message, type: "invalid_request_error", param, code: "context_length_exceeded" },
  });
}

const REQUEST_ID = "req_scripted";

function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", "request-id": REQUEST_ID, ...headers },
  });
}

function abortError(): Error {
  return new DOMException("This operation was aborted", "AbortError");
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(abortError());
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = Number.isFinite(ms) ? setTimeout(done, ms) : undefined;
    function done() {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }
    function onAbort() {
      clearTimeout(timer);
      reject(abortError());
    }
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
