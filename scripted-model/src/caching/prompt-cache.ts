/**
 * The Messages API's prompt cache, emulated closely enough to teach it offline. A request's
 * breakpoints (`cache_control` on a block, or on the request itself) each end a prefix. For each
 * breakpoint the server looks for an entry at that block and at the blocks before it, at most
 * `LOOKBACK_BLOCKS` back; the longest prefix it finds is read. The prefix up to the last
 * breakpoint long enough to cache is then written (what was read is not written again), and every
 * such breakpoint gets an entry that lives for its `ttl` from its last use.
 *
 * Usage is reported as the API reports it: `cache_read_input_tokens`, `cache_creation_input_tokens`
 * (with its split by lifetime), and `input_tokens`, which counts neither.
 *
 * The OpenAI formats cache on their own, with no markers: a request that sends a
 * `prompt_cache_key` reads the longest prefix an earlier request of that key left (at least
 * `OPENAI_MINIMUM_TOKENS`, in steps of `OPENAI_STEP_TOKENS`), and writing costs nothing.
 *
 * The emulation's own choices: tokens are estimates (about four characters a token); one minimum
 * for every model (`MINIMUM_CACHEABLE_TOKENS`); a request's own `cache_control` counts as one of
 * the four breakpoints; a 1h breakpoint after a 5m one is not refused.
 */
import { cachePrefix, MAX_BREAKPOINTS, tooManyBreakpoints } from "./cache-prefix.ts";

/**
 * The shortest prefix the scripted model caches, in tokens. The API's minimums, by model: 1,024
 * (Claude Sonnet 4.5, Sonnet 4, Opus 4.1, Opus 4, Sonnet 3.7), 2,048 (Claude Haiku 3.5, Haiku 3),
 * 4,096 (Claude Opus 4.5, Haiku 4.5). The scripted model uses one: the Sonnet figure.
 */
export const MINIMUM_CACHEABLE_TOKENS = 1024;

/** Blocks the server looks back from a breakpoint for an earlier entry, the breakpoint's own included. */
export const LOOKBACK_BLOCKS = 20;

/** How long an entry lives after its last use, by the `ttl` of its breakpoint. */
export const CACHE_LIFETIME_MS = { "5m": 5 * 60_000, "1h": 60 * 60_000 } as const;

/** OpenAI's automatic cache: the shortest prefix it caches, in tokens. */
export const OPENAI_MINIMUM_TOKENS = 1024;
/** OpenAI's automatic cache: the steps it caches in, in tokens. */
export const OPENAI_STEP_TOKENS = 128;

/** What one request did with the cache. */
export interface CacheUse {
  /** Tokens read from the cache. */
  read: number;
  /** Tokens written to it, by the lifetime of the entry they went to. */
  written: { "5m": number; "1h": number };
}

/** How the emulation is set up (tests set the clock). */
export interface PromptCacheOptions {
  /** Milliseconds now (default `Date.now`): a test moves it past a lifetime. */
  clock?: () => number;
  /** The shortest cacheable prefix (default `MINIMUM_CACHEABLE_TOKENS`). */
  minimumTokens?: number;
}

/** Every entry the server keeps, across requests. */
export class PromptCache {
  private readonly entries = new Map<string, number>(); // prefix hash → when it expires
  private readonly clock: () => number;
  private readonly minimum: number;

  constructor(options: PromptCacheOptions = {}) {
    this.clock = options.clock ?? Date.now;
    this.minimum = options.minimumTokens ?? MINIMUM_CACHEABLE_TOKENS;
  }

  /**
   * The Messages API: read and write the cache for `body`. Returns `null` for a request with no
   * breakpoint (it is answered without cache counts, as before), or the API's error message for
   * one it refuses.
   */
  messages(body: Record<string, unknown>, model: string): CacheUse | string | null {
    const prefix = cachePrefix(body, `messages:${model}`);
    const { breakpoints } = prefix;
    if (breakpoints.length === 0) return null;
    const refused = this.problem(body);
    if (refused) return refused;
    const now = this.clock();
    // the longest prefix found within the lookback of any breakpoint
    let readAt = -1;
    for (const point of breakpoints) {
      for (let block = point.at; block > point.at - LOOKBACK_BLOCKS && block > readAt; block--) {
        if (this.alive(prefix.hashes[block], now)) {
          readAt = block;
          this.keep(prefix.hashes[block], now + CACHE_LIFETIME_MS[point.ttl]); // a read refreshes it
          break;
        }
      }
    }
    const read = readAt < 0 ? 0 : prefix.tokens[readAt];
    const written = { "5m": 0, "1h": 0 };
    let upTo = read;
    for (const point of breakpoints) {
      const tokens = prefix.tokens[point.at];
      if (tokens < this.minimum) continue; // too short to cache: no entry, nothing written
      this.keep(prefix.hashes[point.at], now + CACHE_LIFETIME_MS[point.ttl]);
      if (tokens > upTo) {
        written[point.ttl] += tokens - upTo;
        upTo = tokens;
      }
    }
    return { read, written };
  }

  /** The API's error message for a request it refuses before reading it (more than four breakpoints), else `null`. */
  problem(body: Record<string, unknown>): string | null {
    const found = cachePrefix(body, "").breakpoints.length;
    return found > MAX_BREAKPOINTS ? tooManyBreakpoints(found) : null;
  }

  /**
   * An OpenAI format with a `prompt_cache_key`: the longest prefix an earlier request of that key
   * left is read, in steps; this request's prefixes are kept, at no charge.
   */
  openAi(body: Record<string, unknown>, model: string, key: string): CacheUse {
    const prefix = cachePrefix(body, `openai:${model}:${key}`);
    const now = this.clock();
    let read = 0;
    prefix.hashes.forEach((hash, block) => {
      if (this.alive(hash, now)) read = prefix.tokens[block];
    });
    const steps = Math.floor(read / OPENAI_STEP_TOKENS) * OPENAI_STEP_TOKENS;
    for (const hash of prefix.hashes) this.entries.set(hash, now + CACHE_LIFETIME_MS["5m"]);
    return { read: steps >= OPENAI_MINIMUM_TOKENS ? steps : 0, written: { "5m": 0, "1h": 0 } };
  }

  /** Forget every entry (a server restarted). */
  clear(): void {
    this.entries.clear();
  }

  private alive(hash: string | undefined, now: number): boolean {
    const expires = hash === undefined ? undefined : this.entries.get(hash);
    return expires !== undefined && expires > now;
  }

  /** An entry that lives until `expires`, or longer when it already did. */
  private keep(hash: string, expires: number): void {
    this.entries.set(hash, Math.max(this.entries.get(hash) ?? 0, expires));
  }
}
