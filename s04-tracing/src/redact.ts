/**
 * Redaction: a trace is a file people share, so credentials never reach it. Every key the
 * harness knows (each `…_API_KEY` and `…_AUTH_TOKEN` variable, ANTHROPIC_API_KEY among them, from
 * the shell or .env) and anything shaped like an Anthropic key is replaced before a line is
 * written, wherever it appears: in a prompt, a tool's output, a model's answer.
 */
import { credentialValues, REDACTED } from "@harness/cli";

export { REDACTED };

const KEY_SHAPE = /sk-ant-[A-Za-z0-9_-]{8,}/g;

/** The secret values to scrub: the credentials of the current environment. */
export function knownSecrets(env: NodeJS.ProcessEnv = process.env): string[] {
  return credentialValues(env);
}

/**
 * Replace every secret in a serialised JSON line. Working on the serialised text catches a
 * secret in any field; each secret is matched in its JSON-escaped form.
 */
export function redactLine(line: string, secrets: readonly string[]): string {
  let out = line;
  for (const secret of secrets) out = out.replaceAll(JSON.stringify(secret).slice(1, -1), REDACTED);
  return out.replace(KEY_SHAPE, REDACTED);
}
