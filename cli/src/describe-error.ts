/**
 * One line for any error a run can end with: what happened and what to do. The CLI prints this
 * line alone; the stack only when DEBUG is set.
 */
import { APIConnectionError, APIConnectionTimeoutError, APIError } from "@anthropic-ai/sdk";
import { EndpointError } from "./endpoint-guard.ts";

/** What the line may mention: where the key came from, which endpoint was called. */
export interface ErrorContext {
  keySource?: string;
  baseURL?: string;
}

/** What a system error code means, for the line that says why an endpoint could not be reached. */
const CONNECTION_CODES: Record<string, string> = {
  ECONNREFUSED: "connection refused: nothing listens on that port",
  ECONNRESET: "the connection was reset",
  ENOTFOUND: "no such host",
  EAI_AGAIN: "the host name could not be looked up (DNS)",
  EHOSTUNREACH: "the host is unreachable",
  ENETUNREACH: "the network is unreachable",
  ETIMEDOUT: "connecting took too long",
  UND_ERR_CONNECT_TIMEOUT: "connecting took too long",
  UND_ERR_SOCKET: "the connection was closed",
  DEPTH_ZERO_SELF_SIGNED_CERT: "its TLS certificate is self-signed",
  SELF_SIGNED_CERT_IN_CHAIN: "its TLS certificate chain is self-signed",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "its TLS certificate cannot be verified",
  CERT_HAS_EXPIRED: "its TLS certificate has expired",
  ERR_TLS_CERT_ALTNAME_INVALID: "its TLS certificate is for another host",
  EPROTO: "the TLS handshake failed (is it http, not https?)",
};

/** Describe `error` in one line (no newline inside). */
export function describeError(error: unknown, context: ErrorContext = {}): string {
  const endpoint = context.baseURL ?? "https://api.anthropic.com";
  // the guard's message names the URL and what came back, or how long it waited
  if (error instanceof EndpointError) return oneLine(error.message);
  if (error instanceof APIConnectionTimeoutError) return `no response from ${endpoint} in time (after retries)`;
  if (error instanceof APIConnectionError)
    return `could not reach ${endpoint}: ${connectionCause(error, endpoint)} (after retries)`;
  if (error instanceof APIError) {
    const body = error.error as { error?: { type?: string; message?: string } } | undefined;
    if (error.status !== undefined && body === undefined) {
      // not a Messages API error body (a proxy's HTML page, plain text): say what came back
      const type = error.headers?.get("content-type")?.split(";")[0] || "with no content type";
      const text = oneLine(error.message.replace(/^\d+ /, "")).slice(0, 100);
      const retried = error.status === 429 || error.status >= 500 ? " (after retries)" : "";
      // a base URL ending in /v1 makes /v1/v1/messages: the SDK adds the path itself
      const hint = error.status === 404 ? "; check ANTHROPIC_BASE_URL (the client adds /v1/messages to it)" : "";
      return `${endpoint} answered ${error.status} ${type}, not a Messages API error: ${JSON.stringify(text)}${retried}${hint}`;
    }
    const type = body?.error?.type ?? error.type ?? "error";
    // a compatible server's message may span lines: keep them on one
    const message = oneLine(String(body?.error?.message ?? error.message));
    const status = error.status === undefined ? "stream error" : `${error.status}`;
    const what = `the API answered ${status} ${type}: ${message}`;
    if (error.status === 401) return `${what}; the key was rejected (${context.keySource ?? "no key was sent"})`;
    if (error.status === 404 && /model/i.test(message)) return `${what}; check --model or MODEL_ID`;
    if (error.status === 429 || error.status === 529 || (error.status ?? 0) >= 500) return `${what} (after retries)`;
    return what;
  }
  if (error instanceof Error) return error.message.split("\n")[0];
  return String(error).split("\n")[0];
}

/**
 * Why fetch failed: `fetch failed` says nothing, its causes do (ECONNREFUSED, ENOTFOUND, and
 * fetch's own refusals such as "bad port", for ports the fetch standard blocks, 9 among them).
 */
/**
 * Why a connection to `endpoint` failed, read from the deepest cause fetch gave (its system code
 * said in words): for any SDK's connection error.
 */
export function connectionCause(error: Error, endpoint: string): string {
  const seen = new Set<unknown>();
  let deepest = "";
  for (let e: unknown = error.cause; e instanceof Error && !seen.has(e); e = e.cause) {
    seen.add(e);
    // an AggregateError (several addresses tried) carries its code, or its first error's
    const code = (e as { code?: unknown }).code ?? (e as { errors?: { code?: unknown }[] }).errors?.[0]?.code;
    if (typeof code === "string") return `${CONNECTION_CODES[code] ?? oneLine(e.message)} (${code})`;
    if (e.message === "bad port") return `fetch refuses port ${portOf(endpoint)} ("bad port" in the fetch standard)`;
    if (e.message === "unknown scheme") return "unknown scheme: a base URL begins with http:// or https://";
    if (e.message && e.message !== "fetch failed") deepest = oneLine(e.message);
  }
  return deepest || oneLine(error.message);
}

function portOf(endpoint: string): string {
  try {
    const url = new URL(endpoint);
    return url.port || (url.protocol === "https:" ? "443" : "80");
  } catch {
    return "?";
  }
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ").trim();
}
