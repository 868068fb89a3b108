/**
 * The defaults every chapter's loop and the shared CLI start from, defined once: a chapter's loop
 * reads them when an option is left out, and `--help` prints the turn budget from here.
 */

/** The default turn budget: model calls before a loop stops with `max_turns`. */
export const DEFAULT_MAX_TURNS = 8;

/** The default cap on output tokens per model call. */
export const DEFAULT_MAX_TOKENS = 8192;
