/**
 * Which provider a run talks to, decided from the command line and the environment alone.
 *
 * The rule: `--provider` names the wire format when given. Without it, an Anthropic credential
 * (ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN) means `anthropic`; else OPENAI_API_KEY means
 * `openai-chat` (the format most servers speak); else `anthropic`. Each format reads only its own
 * provider's variables: the Anthropic credential and ANTHROPIC_BASE_URL for `anthropic`,
 * OPENAI_API_KEY and OPENAI_BASE_URL for both OpenAI formats, so a key is never sent to another
 * provider's endpoint. With `--offline`, or no key for the chosen format, the scripted model
 * answers, speaking that format.
 */
import type { LoadedEnv } from "@harness/cli";
import { WIRE_FORMATS, type WireFormat } from "../provider-adapter.ts";

/** The endpoint the `openai` SDK calls when OPENAI_BASE_URL is not set. */
export const DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1";

/** The model sent to an OpenAI-format endpoint when neither `--model` nor MODEL_ID names one. */
export const DEFAULT_OPENAI_MODEL = "gpt-5.5";

/** The variables a credential is read from, per format, in the order they are tried. */
export const CREDENTIALS: Readonly<Record<WireFormat, readonly string[]>> = {
  anthropic: ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"],
  "openai-chat": ["OPENAI_API_KEY"],
  "openai-responses": ["OPENAI_API_KEY"],
};

/** The variable that moves each format's endpoint. */
export const BASE_URL_VARIABLES: Readonly<Record<WireFormat, string>> = {
  anthropic: "ANTHROPIC_BASE_URL",
  "openai-chat": "OPENAI_BASE_URL",
  "openai-responses": "OPENAI_BASE_URL",
};

/** The provider chosen for a run. */
export interface ProviderSelection {
  format: WireFormat;
  /** Why this format: "--provider", or the variable it was defaulted from. */
  formatReason: string;
  /** `api` with a key for the format, `scripted` for the built-in model. */
  kind: "api" | "scripted";
  /** The variable the key is read from (`api` only), never its value. */
  credential?: string;
  /** Why the scripted model answers (`scripted` only). */
  scriptedReason?: string;
}

/** Whether `value` names a wire format. */
export function isWireFormat(value: unknown): value is WireFormat {
  return WIRE_FORMATS.includes(value as WireFormat);
}

/**
 * Choose the provider by the rule above (the file's header).
 * A credential in the shell wins over one in `.env`, as in `createClient`; an empty variable is unset.
 * Contract: pure, never throws; `provider` must already be a `WireFormat` (the CLI checks it).
 */
export function selectProvider(
  provider: WireFormat | undefined,
  env: Pick<LoadedEnv, "shell" | "file">,
  offline = false,
): ProviderSelection {
  const has = (name: string) => Boolean(env.shell[name]?.trim() || env.file[name]?.trim());
  const anthropicKey = CREDENTIALS.anthropic.find(has);
  const format: WireFormat =
    provider ?? (anthropicKey ? "anthropic" : has("OPENAI_API_KEY") ? "openai-chat" : "anthropic");
  const formatReason = provider
    ? "--provider"
    : (anthropicKey ?? (has("OPENAI_API_KEY") ? "OPENAI_API_KEY" : "the default"));
  const credential = [env.shell, env.file]
    .flatMap((place) => CREDENTIALS[format].filter((name) => place[name]?.trim()))
    .at(0);
  if (offline || !credential) {
    const scriptedReason = offline ? "--offline was given" : `no ${CREDENTIALS[format].join(" or ")} is set`;
    return { format, formatReason, kind: "scripted", scriptedReason };
  }
  return { format, formatReason, kind: "api", credential };
}
