/**
 * Redaction: a trace is a file people share, so credentials never reach it. The keys the harness
 * knows (the CLI hands the writer every `…_API_KEY` and `…_AUTH_TOKEN` value of the shell and
 * .env) and anything shaped like an Anthropic key are replaced before a line is written, wherever
 * they appear: in a prompt, a tool's output, a model's answer.
 */

/** What a credential is replaced with. */
export const REDACTED = "[REDACTED]";

const KEY_SHAPE = /sk-ant-[A-Za-z0-9_-]{8,}/g;

/**
 * Replace every secret in a serialised JSON line. Working on the serialised text catches a
 * secret in any field; each secret is matched in its JSON-escaped form.
 */
export function redactLine(line: string, secrets: readonly string[]): string {
  let out = line;
  for (const secret of secrets) out = out.replaceAll(JSON.stringify(secret).slice(1, -1), REDACTED);
  return out.replace(KEY_SHAPE, REDACTED);
}
