/**
 * shared's endpoint guard, around the `openai` SDK's `fetch`: the same checks (a response that is
 * not the API's, a silent server) and the same bounded waits, for the two OpenAI formats.
 *
 * The `openai` SDK has no middleware, and it retries whatever its `fetch` throws. So a refusal that
 * comes before any response (no headers in time, a body that is not the API's) is handed to the
 * SDK as a response it does not retry (`x-should-retry: false`), and `asEndpointError` turns the
 * SDK's error back into the guard's `EndpointError`. A refusal inside a stream (silence, a first
 * event the API never sends) reaches the reader as the guard threw it.
 */
import type { Middleware } from "@anthropic-ai/sdk";
import { type EndpointApi, EndpointError, endpointGuard } from "@harness/cli";
import { APIError } from "openai";

/** The Chat Completions API, as the guard checks it. */
export const CHAT_COMPLETIONS_API: EndpointApi = {
  name: "Chat Completions API",
  responseName: "completion",
  ownsPath: (path) => path.endsWith("/chat/completions"),
  isResponse: (body) => isObject(body) && Array.isArray(body.choices),
  isFirstEvent: (name, data) => {
    if (name !== null && name !== "message") return false;
    const event = parseObject(data);
    return event !== null && (Array.isArray(event.choices) || isObject(event.error));
  },
};

/** The Responses API, as the guard checks it. */
export const RESPONSES_API: EndpointApi = {
  name: "Responses API",
  responseName: "response",
  ownsPath: (path) => path.endsWith("/responses"),
  isResponse: (body) => isObject(body) && body.object === "response" && Array.isArray(body.output),
  isFirstEvent: (_name, data) => {
    const type = parseObject(data)?.type;
    return typeof type === "string" && (type.startsWith("response.") || type === "error");
  },
};

/** The error type a refused response carries to the SDK, so `asEndpointError` knows it again. */
const REFUSED = "harness_endpoint_error";

/**
 * A `fetch` for the `openai` SDK that checks every response as `api` and bounds every wait to
 * `timeoutMs` (give the SDK a longer `timeout`, so this guard's timer fires first).
 */
export function guardedFetch(api: EndpointApi, timeoutMs: number, fetch: typeof globalThis.fetch = globalThis.fetch) {
  const guard: Middleware = endpointGuard({ timeoutMs, api });
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const caller = init?.signal ?? undefined;
    const inner = new AbortController();
    caller?.addEventListener("abort", () => inner.abort(caller.reason), { once: true });
    // the wait for the headers: the guard reads an abort its caller did not make as "no response"
    const timer = setTimeout(() => inner.abort(), timeoutMs);
    const url = input instanceof Request ? input.url : String(input);
    const request = { ...init, url, headers: new Headers(init?.headers), signal: inner.signal };
    const stream = typeof init?.body === "string" && /"stream"\s*:\s*true/.test(init.body);
    const context = { options: { stream, signal: caller }, logger: console, parse: async () => undefined };
    try {
      return await guard(request, (r) => fetch(r.url, r), context as unknown as Parameters<Middleware>[2]);
    } catch (error) {
      if (!(error instanceof EndpointError)) throw error;
      const status = error.problem === "no_response" || error.problem === "slow_response" ? 504 : 502;
      const body = { error: { message: error.message, type: REFUSED, code: error.problem, param: null } };
      return new Response(JSON.stringify(body), {
        status,
        headers: { "content-type": "application/json", "x-should-retry": "false" },
      });
    } finally {
      clearTimeout(timer);
    }
  };
}

/** The guard's `EndpointError` again, when `error` is the SDK's error for a refused response; else `error`. */
export function asEndpointError(error: unknown): unknown {
  if (!(error instanceof APIError) || error.type !== REFUSED) return error;
  const body = error.error as { message?: string; code?: EndpointError["problem"] } | undefined;
  return new EndpointError(body?.code ?? "not_messages_api", body?.message ?? error.message);
}

function parseObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : null;
  } catch {
    return null;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
