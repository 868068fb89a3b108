/**
 * Asking the user a question from inside a run (a later chapter asks before a tool call runs):
 * on the line reader the REPL already has, so no second reader competes for the terminal's lines.
 * Without a terminal nobody can answer: the CLI answers "no" for the user and says so.
 */
import type { Interface } from "node:readline";

/** What the user can answer. */
export type AskAnswer = "yes" | "no" | "always";

/** The answers offered when a question names none. */
export const DEFAULT_CHOICES: readonly AskAnswer[] = ["yes", "no"];

/**
 * Read a typed answer: the word or its first letter, in any case, among `choices`; `undefined`
 * for anything else.
 */
export function parseAnswer(line: string, choices: readonly AskAnswer[] = DEFAULT_CHOICES): AskAnswer | undefined {
  const typed = line.trim().toLowerCase();
  return choices.find((choice) => typed !== "" && (typed === choice || typed === choice[0]));
}

/**
 * Ask `question` on `reader` until one of `choices` is typed.
 * Contract: never throws; the input ending or `signal` aborting (Ctrl-C) answers "no".
 */
export function askUser(
  reader: Interface,
  question: string,
  choices: readonly AskAnswer[] = DEFAULT_CHOICES,
  signal?: AbortSignal,
): Promise<AskAnswer> {
  const keys = choices.map((choice) => choice[0]).join("/");
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve("no");
    const done = (answer: AskAnswer) => {
      reader.off("close", onClose);
      signal?.removeEventListener("abort", onAbort);
      resolve(answer);
    };
    const onClose = () => done("no");
    const onAbort = () => done("no"); // readline drops the pending question itself
    reader.once("close", onClose);
    signal?.addEventListener("abort", onAbort, { once: true });
    const ask = (query: string) => {
      try {
        reader.question(query, { signal }, (line) => {
          const answer = parseAnswer(line, choices);
          if (answer) done(answer);
          else ask(`please answer ${choices.join(", ")} [${keys}] `);
        });
      } catch {
        done("no"); // the reader was closed already
      }
    };
    ask(`${question} [${keys}] `);
  });
}
