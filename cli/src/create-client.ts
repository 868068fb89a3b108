/**
 * The client a chapter talks to: the real API when a key is set, the scripted model otherwise.
 *
 * Both are the same `Anthropic` type, so a chapter's loop calls `client.messages.create` or
 * `client.messages.stream` and cannot tell which it has. Only the CLI knows, to say so once.
 * Both carry the endpoint guard (`endpoint-guard.ts`): a response that is not the Messages API,
 * or a model silent for longer than the timeout, is an error that names the endpoint.
 */
import Anthropic, { type ClientOptions } from "@anthropic-ai/sdk";
import { endpointGuard } from "./endpoint-guard.ts";
import { loadEnv } from "./load-env.ts";

/** The model used when neither `--model` nor MODEL_ID names one. */
export const DEFAULT_MODEL = "claude-sonnet-5-5";

/**
 * Seconds the client waits for the model: for a whole response in total, for a stream the
 * longest silence between its chunks. Long enough for s01's whole responses (up to 8192 tokens,
 * not streamed); a timeout is not retried, so this is the longest a silent server holds a run.
 */
export const DEFAULT_MODEL_TIMEOUT_SECONDS = 120;

/** The endpoint the SDK calls when ANTHROPIC_BASE_URL is not set. */
export const DEFAULT_BASE_URL = "https://api.anthropic.com";

/** The two variables a credential is read from, in the order they are tried in each place. */
const CREDENTIALS = [
  { name: "ANTHROPIC_API_KEY", option: "apiKey" },
  { name: "ANTHROPIC_AUTH_TOKEN", option: "authToken" },
] as const;

/** Where the chapter's model calls go. */
export interface ClientChoice {
  client: Anthropic;
  /** The model id to send. */
  model: string;
  /** `api` with a key (or an Anthropic-compatible endpoint), `scripted` for the built-in model. */
  kind: "api" | "scripted";
  /** Where the key came from, never its value ("ANTHROPIC_API_KEY from the shell"). */
  keySource?: string;
  /** The endpoint, when it is not the default one. */
  baseURL?: string;
  /**
   * The one line the CLI prints on stderr at start: the endpoint, the model and where the key
   * came from, or that the scripted model answers and why.
   */
  notice: string;
}

/**
 * The offline model a chapter answers with when no key is set: something that makes an `Anthropic`
 * client with the options the CLI gives (its timeout and endpoint guard). The scripted model is one
 * (`@harness/scripted-model`); each chapter's main.ts chooses it, so this package never loads it.
 */
export interface OfflineModel {
  /** A client whose calls this model answers. */
  client(options: ClientOptions): Anthropic;
}

/** What `createClient` reads. */
export interface CreateClientOptions {
  /** Use the scripted model even when a key is set. */
  offline?: boolean;
  /** Model id; overrides MODEL_ID. */
  model?: string;
  /** Seconds to wait for the model (default `DEFAULT_MODEL_TIMEOUT_SECONDS`). */
  modelTimeoutSeconds?: number;
  /** Variables to read instead of the shell's (tests). */
  env?: NodeJS.ProcessEnv;
  /** A `.env` file to read instead of the repository root's (tests). */
  envFile?: string;
  /**
   * The model that answers when no key is set (or with `offline`), made only when it is needed.
   * Without it, a run with no key is an error that says to set one.
   */
  scripted?: () => OfflineModel;
}

/**
 * Choose and build the client.
 * A credential in the shell, under either name, wins over both names in `.env`; in one place,
 * ANTHROPIC_API_KEY wins over ANTHROPIC_AUTH_TOKEN. An empty variable is unset (see `loadEnv`).
 * Contract: never sends a request; a key that is wrong shows up on the first call, as an error
 * that `describeError` turns into one line naming where the key was read from.
 */
export function createClient(options: CreateClientOptions): ClientChoice {
  const env = loadEnv(options.env ?? process.env, options.envFile);
  const model = options.model ?? env.values.MODEL_ID ?? DEFAULT_MODEL;
  // setTimeout fires at once beyond 2^31-1 ms, and the SDK wants whole milliseconds
  const timeoutMs = Math.min(
    Math.max(Math.round((options.modelTimeoutSeconds ?? DEFAULT_MODEL_TIMEOUT_SECONDS) * 1000), 1),
    2 ** 31 - 1,
  );
  const guarded = { timeout: timeoutMs, middleware: [endpointGuard({ timeoutMs })] };

  const credential = options.offline
    ? undefined
    : [env.shell, env.file]
        .flatMap((place) => CREDENTIALS.map((c) => ({ ...c, place, value: place[c.name]?.trim() })))
        .find((c) => c.value);
  if (!credential) {
    if (!options.scripted)
      throw new Error("no ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN is set, and no offline model was given");
    const scripted = options.scripted();
    const why = options.offline ? "--offline was given" : "no ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN is set";
    return {
      client: scripted.client(guarded),
      model,
      kind: "scripted",
      notice: `Using the offline scripted model (${why}); set a key in the shell or in .env to use Claude.`,
    };
  }
  const baseURL = env.values.ANTHROPIC_BASE_URL?.trim();
  const keySource = `${credential.name} from ${env.sourceOf(credential.name)}`;
  const client = new Anthropic({ [credential.option]: credential.value, ...(baseURL ? { baseURL } : {}), ...guarded });
  const endpoint = baseURL
    ? `${baseURL} (ANTHROPIC_BASE_URL from ${env.sourceOf("ANTHROPIC_BASE_URL")})`
    : DEFAULT_BASE_URL;
  return {
    client,
    model,
    kind: "api",
    keySource,
    baseURL: baseURL || undefined,
    notice: `Using ${endpoint}, model ${model}, with ${keySource}.`,
  };
}
