/**
 * The client a chapter talks to: the real API when a key is set, the scripted model otherwise.
 *
 * Both are the same `Anthropic` type, so a chapter's loop calls `client.messages.create` or
 * `client.messages.stream` and cannot tell which it has. Only the CLI knows, to say so once.
 */
import Anthropic from "@anthropic-ai/sdk";
import { loadEnv } from "./load-env.ts";
import { demoBrain } from "./scripted-model/demo-brain.ts";
import { type Brain, ScriptedModel } from "./scripted-model/scripted-model.ts";

/** The model used when neither `--model` nor MODEL_ID names one. */
export const DEFAULT_MODEL = "claude-sonnet-5-5";

/** Where the chapter's model calls go. */
export interface ClientChoice {
  client: Anthropic;
  /** The model id to send. */
  model: string;
  /** `api` with a key (or an Anthropic-compatible endpoint), `scripted` for the built-in model. */
  kind: "api" | "scripted";
  /** Where the key came from, for error messages ("ANTHROPIC_API_KEY from the shell"). */
  keySource?: string;
  /** The endpoint, when it is not the default one. */
  baseURL?: string;
  /** The one line to print on stderr when the scripted model answers. */
  notice?: string;
}

/** What `createClient` reads. */
export interface CreateClientOptions {
  /** Use the scripted model even when a key is set. */
  offline?: boolean;
  /** Model id; overrides MODEL_ID. */
  model?: string;
  /** Variables to read instead of the shell's (tests). */
  env?: NodeJS.ProcessEnv;
  /** A `.env` file to read instead of the repository root's (tests). */
  envFile?: string;
  /** The scripted model's brain (default: the demo brain). */
  brain?: Brain;
}

/**
 * Choose and build the client.
 * Contract: never sends a request; a key that is wrong shows up on the first call, as an error
 * that `describeError` turns into one line naming where the key was read from.
 */
export function createClient(options: CreateClientOptions = {}): ClientChoice {
  const env = loadEnv(options.env ?? process.env, options.envFile);
  const apiKey = env.values.ANTHROPIC_API_KEY;
  const authToken = env.values.ANTHROPIC_AUTH_TOKEN;
  const baseURL = env.values.ANTHROPIC_BASE_URL;
  const model = options.model ?? env.values.MODEL_ID ?? DEFAULT_MODEL;

  if (options.offline || (!apiKey && !authToken)) {
    const scripted = new ScriptedModel({ brain: options.brain ?? demoBrain });
    const why = options.offline ? "--offline was given" : "no ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN is set";
    return {
      client: scripted.client(),
      model,
      kind: "scripted",
      notice: `Using the offline scripted model (${why}); set a key in the shell or in .env to use Claude.`,
    };
  }
  const keyName = apiKey ? "ANTHROPIC_API_KEY" : "ANTHROPIC_AUTH_TOKEN";
  const client = new Anthropic({
    ...(apiKey ? { apiKey } : { authToken }),
    ...(baseURL ? { baseURL } : {}),
  });
  return { client, model, kind: "api", keySource: `${keyName} from ${env.sourceOf(keyName)}`, baseURL };
}
