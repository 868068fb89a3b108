/**
 * One line for any error a run can end with: what happened and what to do. The CLI prints this
 * line alone; the stack only when DEBUG is set.
 */
import { APIConnectionError, APIConnectionTimeoutError, APIError } from "@anthropic-ai/sdk";

/** What the line may mention: where the key came from, which endpoint was called. */
export interface ErrorContext {
  keySource?: string;
  baseURL?: string;
}

/** Describe `error` in one line (no newline inside). */
export function describeError(error: unknown, context: ErrorContext = {}): string {
  const endpoint = context.baseURL ?? "https://api.anthropic.com";
  if (error instanceof APIConnectionTimeoutError) return `the request to ${endpoint} timed out`;
  if (error instanceof APIConnectionError) {
    // fetch wraps the system error: `fetch failed`, caused by ECONNREFUSED, ENOTFOUND, ...
    const cause = (error.cause as { code?: string; message?: string; cause?: { code?: string } } | undefined) ?? {};
    return `could not reach ${endpoint} (${cause.code ?? cause.cause?.code ?? cause.message ?? error.message})`;
  }
  if (error instanceof APIError) {
    const body = error.error as { error?: { type?: string; message?: string } } | undefined;
    const type = body?.error?.type ?? error.type ?? "error";
    // a proxy's error page or a compatible server's message may span lines: keep them on one
    const message = String(body?.error?.message ?? error.message).replace(/\s*\n\s*/g, " ");
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
