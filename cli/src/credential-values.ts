/**
 * The credentials of an environment, so no file or message the harness writes carries one: the
 * values of every variable whose name says it holds a key (`…_API_KEY`, `…_AUTH_TOKEN`), from the
 * shell or `.env`. A value shorter than 8 characters is left out: it would match ordinary text.
 */
import { loadEnv } from "./load-env.ts";

/** What a credential is replaced with. */
export const REDACTED = "[REDACTED]";

/** The credential values of `env` (and `.env`), each at least 8 characters long. */
export function credentialValues(env: NodeJS.ProcessEnv = process.env, envFile?: string): string[] {
  const { values } = loadEnv(env, envFile);
  return Object.entries(values)
    .filter(([name, value]) => /(?:_API_KEY|_AUTH_TOKEN)$/.test(name) && value !== undefined && value.length >= 8)
    .map(([, value]) => value as string);
}

/** `text` with every value of `secrets` replaced by `REDACTED`. */
export function withoutSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) out = out.replaceAll(secret, REDACTED);
  return out;
}
