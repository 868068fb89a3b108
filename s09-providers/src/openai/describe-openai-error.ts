/**
 * One line for an error of the `openai` SDK, as shared's `describeError` gives one for the
 * Anthropic SDK's: what happened, where, and what to do. The CLI prints it in place of the SDK's
 * own message ("Connection error.", "401 Incorrect API key provided: sk-…").
 */
import { connectionCause } from "@harness/cli";
import { APIConnectionError, APIConnectionTimeoutError, APIError } from "openai";

/** What the line may name: the endpoint called and where the key came from. */
export interface OpenAiErrorContext {
  baseURL: string;
  keySource?: string;
}

/**
 * The line for `error`, or `undefined` when it is not the `openai` SDK's (shared's `describeError`
 * describes the rest).
 * Contract: one line; never the key's value.
 */
export function describeOpenAiError(error: unknown, context: OpenAiErrorContext): string | undefined {
  const endpoint = context.baseURL;
  if (error instanceof APIConnectionTimeoutError) return `no response from ${endpoint} in time (after retries)`;
  if (error instanceof APIConnectionError) {
    return `could not reach ${endpoint}: ${connectionCause(error, endpoint)} (after retries)`;
  }
  if (!(error instanceof APIError)) return undefined;
  const body = error.error as { message?: unknown; type?: unknown } | undefined;
  const type = typeof body?.type === "string" ? body.type : (error.type ?? "error");
  // a JSON body with no `error` field (FastAPI's {"detail": …}) is dropped by the SDK: "(no body)"
  const said = oneLine(error.message.replace(/^\d+ /, ""));
  const message =
    typeof body?.message === "string"
      ? oneLine(body.message)
      : said === "status code (no body)"
        ? "no error the client could read in the body"
        : said;
  const what = `${endpoint} answered ${error.status ?? "a stream error"} ${type}: ${message}`;
  if (error.status === 401) return `${what}; the key was rejected (${context.keySource ?? "no key was sent"})`;
  if (error.status === 404)
    return `${what}; check --model or MODEL_ID, and OPENAI_BASE_URL (the client adds /chat/completions or /responses to it)`;
  if (error.status === 429 || (error.status ?? 0) >= 500) return `${what} (after retries)`;
  return what;
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ").trim();
}
