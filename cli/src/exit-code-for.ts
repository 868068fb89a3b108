/**
 * How a CLI run ends, as an exit status. The base is COURSE.md's, the same in every chapter; a
 * chapter that adds a stop reason adds its status through its `ChapterCli.exitCodes`, so this file
 * names no chapter's results.
 */

/** Exit statuses of a chapter's own stop reasons (`{ aborted: 130 }`). */
export type ExitCodes = Readonly<Record<string, number>>;

/** The statuses every chapter keeps: the three results of s01's loop, an error, an interrupted run. */
export const EXIT_CODES = {
  final_answer: 0,
  max_turns: 2,
  max_tokens: 3,
  error: 1,
  interrupted: 130,
} as const satisfies ExitCodes;

/**
 * The exit status for a stop reason: the base table's, else the chapter's, else `error`'s.
 * Contract: a chapter cannot change a base status, and an unknown result is an error, never 0.
 */
export function exitCodeFor(stopReason: string, chapterCodes: ExitCodes = {}): number {
  if (Object.hasOwn(EXIT_CODES, stopReason)) return EXIT_CODES[stopReason as keyof typeof EXIT_CODES];
  if (Object.hasOwn(chapterCodes, stopReason)) return chapterCodes[stopReason];
  return EXIT_CODES.error;
}
