/**
 * Exercises as checked claims. An exercise in a chapter text names a change to the chapter's code
 * and the test it turns red (or leaves green); the chapter's manifest, `test/exercises.ts`, says the
 * same as data, and `pnpm test:exercises` (check-exercises.ts) makes the change in a copy of the
 * repository and runs the test to see that it does.
 *
 * A manifest exports `exercises`, a list of:
 *
 *     { id: 1, kind: "build", file: "src/agent-loop.ts", find: "<exact text>", replace: "<text>",
 *       test: "<a test's name, or a test file>", expect: "fail" | "pass" }
 *
 * `id` is the exercise's number in the text's `## Exercises` section; `file` is relative to the
 * chapter folder; `find` occurs exactly once in it; `test` is a test's name (or a part of it, as
 * vitest's `-t` reads it: a pattern) or a file under `test/` ending in `.test.ts`. The text shows
 * the command `exerciseCommand` builds, which readers paste from the repository root.
 *
 * Two kinds. A **mutation** exercise (no `kind`) is a change the reader makes and a test it turns
 * red (or leaves green): the reader predicts first. A **build** exercise (`kind: "build"`,
 * `expect: "fail"`) is one the reader writes: `find` → `replace` is the stub the reader starts
 * from (the mechanism taken out), `test` the test(s) the stub turns red, and the chapter's own
 * code is the reference solution. `pnpm test:exercises` proves a build exercise: with the stub,
 * the chapter's whole suite runs, at least one test fails and every test that fails is one `test`
 * names (nothing else breaks); with the reference, the whole suite passes.
 *
 * The manifest is plain data with no import, so a chapter needs no dependency for it; `readExercises`
 * checks its shape.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Chapter } from "./find-chapters.ts";

/** What a change does to the named test: turns it red, or leaves it green. */
export type ExerciseOutcome = "fail" | "pass";

/** What an exercise asks of the reader: to write the mechanism, or to predict what a change breaks. */
export type ExerciseKind = "build" | "mutation";

/** One exercise of a chapter: a change, and what it does to a test. */
export interface Exercise {
  /** Its number in the chapter text's exercises section, from 1. */
  id: number;
  /** `"build"`: the change is the stub the reader starts from. Left out: a mutation exercise. */
  kind?: "build";
  /** The file to change, relative to the chapter folder (`src/agent-loop.ts`). */
  file: string;
  /** Text that occurs exactly once in `file`. */
  find: string;
  /** What `find` becomes. */
  replace: string;
  /** A test's name (vitest `-t`, a pattern) or a test file (`test/agent-loop.test.ts`). */
  test: string;
  /** `fail`: with the change, the test fails. `pass`: with the change, it still passes. */
  expect: ExerciseOutcome;
}

/** Where a chapter keeps its manifest, relative to the chapter folder. */
export const MANIFEST = "test/exercises.ts";

/** One problem with a manifest or with the text that shows it. */
export interface ExerciseProblem {
  /** The chapter folder. */
  chapter: string;
  /** What is wrong, in one line. */
  message: string;
}

/** An exercise's kind: `build` when the manifest says so, else `mutation`. */
export function kindOf(exercise: Pick<Exercise, "kind">): ExerciseKind {
  return exercise.kind === "build" ? "build" : "mutation";
}

/** Whether `test` names a test file rather than a test. */
export function isTestFile(test: string): boolean {
  return test.endsWith(".test.ts");
}

/**
 * The command a reader runs for an exercise, from the repository root: the chapter's own `test`
 * script, filtered to the exercise's test.
 */
export function exerciseCommand(packageName: string, exercise: Pick<Exercise, "test">): string {
  return `pnpm --filter ${packageName} test ${testFilter(exercise.test).join(" ")}`;
}

/** The arguments that pick the exercise's test out of the chapter's tests (`-t "name"`, or a file). */
export function testFilter(test: string): string[] {
  return isTestFile(test) ? [test] : ["-t", `"${test}"`];
}

/** The same arguments, unquoted, for a process started without a shell. */
export function testFilterArgs(test: string): string[] {
  return isTestFile(test) ? [test] : ["-t", test];
}

/**
 * Load a chapter's manifest: `undefined` when it has none, else its exercises, or the problems
 * with its shape. Imports the file, so it runs only under tsx or vitest.
 */
export async function readExercises(
  chapter: Pick<Chapter, "folder" | "path">,
): Promise<{ exercises: Exercise[]; problems: ExerciseProblem[] } | undefined> {
  const path = join(chapter.path, MANIFEST);
  if (!existsSync(path)) return undefined;
  const module = (await import(pathToFileURL(path).href)) as { exercises?: unknown };
  return checkManifest(chapter, module.exercises);
}

/** Check what a manifest exports: the shape of each entry, and its `find` against the file. */
export function checkManifest(
  chapter: Pick<Chapter, "folder" | "path">,
  value: unknown,
): { exercises: Exercise[]; problems: ExerciseProblem[] } {
  const problems: ExerciseProblem[] = [];
  const problem = (message: string) => problems.push({ chapter: chapter.folder, message });
  if (!Array.isArray(value) || value.length === 0) {
    problem(`${MANIFEST} must export \`exercises\`, a list with at least one exercise`);
    return { exercises: [], problems };
  }
  const exercises: Exercise[] = [];
  value.forEach((entry: Partial<Record<keyof Exercise, unknown>>, index) => {
    const where = `${MANIFEST}, exercise ${index + 1}`;
    const shape = shapeProblem(entry, index + 1);
    if (shape) {
      problem(`${where}: ${shape}`);
      return;
    }
    const exercise = entry as Exercise;
    exercises.push(exercise);
    for (const message of exerciseProblems(chapter.path, exercise)) problem(`${where}: ${message}`);
  });
  return { exercises, problems };
}

/** What is wrong with the shape of a manifest entry, or undefined when it is an `Exercise`. */
function shapeProblem(entry: Partial<Record<keyof Exercise, unknown>>, id: number): string | undefined {
  const missing = (["file", "find", "replace", "test"] as const).filter((key) => typeof entry?.[key] !== "string");
  if (missing.length > 0) return `${missing.join(", ")} must be text`;
  if (entry.id !== id) return `id is ${String(entry.id)}; ids count 1, 2, 3, ... in order`;
  if (entry.expect !== "fail" && entry.expect !== "pass") {
    return `expect is ${JSON.stringify(entry.expect)}; it must be "fail" or "pass"`;
  }
  if (entry.kind !== undefined && entry.kind !== "build") {
    return `kind is ${JSON.stringify(entry.kind)}; it is "build" or left out (a mutation exercise)`;
  }
  if (entry.kind === "build" && entry.expect !== "fail") {
    return 'a build exercise\'s stub turns its test red: its expect is "fail"';
  }
  return undefined;
}

/** What is wrong with one well-shaped exercise against the chapter's files. */
function exerciseProblems(chapterPath: string, exercise: Exercise): string[] {
  const problems: string[] = [];
  const path = join(chapterPath, exercise.file);
  if (!existsSync(path)) {
    problems.push(`${exercise.file} does not exist in the chapter`);
  } else {
    const count = occurrences(readFileSync(path, "utf8"), exercise.find);
    if (exercise.find === "") problems.push("find is empty");
    else if (count !== 1) problems.push(`find occurs ${count} times in ${exercise.file}; it must occur exactly once`);
  }
  if (exercise.find === exercise.replace) problems.push("replace is the same as find: the change changes nothing");
  if (/["`$\\]/.test(exercise.test)) {
    problems.push(`test ${JSON.stringify(exercise.test)} has a character a shell would read inside "…" (" \` $ \\)`);
  } else if (isTestFile(exercise.test)) {
    if (!existsSync(join(chapterPath, exercise.test))) problems.push(`the test file ${exercise.test} does not exist`);
  } else if (!testNames(chapterPath).some((name) => matches(exercise.test, name))) {
    problems.push(
      `no test in test/*.test.ts is named like ${JSON.stringify(exercise.test)} (vitest -t reads it as a pattern: ` +
        "leave out ( ) [ ] . * + ? and the like, or escape them)",
    );
  }
  return problems;
}

/** How many times `part` occurs in `text` (0 for an empty `part`). */
export function occurrences(text: string, part: string): number {
  if (part === "") return 0;
  let count = 0;
  for (let at = text.indexOf(part); at !== -1; at = text.indexOf(part, at + part.length)) count++;
  return count;
}

/** Whether vitest's `-t` pattern picks the test named `name` (a test's full name: its describes and its own). */
export function matches(pattern: string, name: string): boolean {
  try {
    return new RegExp(pattern).test(name);
  } catch {
    return false;
  }
}

/**
 * The names given to `it(...)` and `test(...)` in a chapter's test files, as written (an
 * `it.each` name keeps its `%s`), and those of testkit's chapter-text suite when a test calls it. Good
 * enough to tell whether a `-t` pattern picks any test.
 */
export function testNames(chapterPath: string): string[] {
  const dir = join(chapterPath, "test");
  if (!existsSync(dir)) return [];
  const names: string[] = [];
  const sources = readdirSync(dir)
    .filter((name) => name.endsWith(".test.ts"))
    .map((file) => readFileSync(join(dir, file), "utf8"));
  // a readme test that calls testkit's chapter-text suite runs the suite's tests too
  if (sources.some((source) => source.includes("chapterTextSuite("))) {
    sources.push(readFileSync(join(chapterPath, "..", "testkit", "src", "chapter-text-suite.ts"), "utf8"));
  }
  for (const source of sources) {
    for (const match of source.matchAll(
      /\b(?:it|test)(?:\.\w+)*(?:\([^()]*\))?\(\s*(["'`])((?:\\.|(?!\1)[^\\])*)\1/g,
    )) {
      names.push(match[2].replace(/\\(.)/g, "$1"));
    }
  }
  return names;
}

/** The two languages of a chapter text, and the heading of each one's exercises section. */
export const EXERCISES_HEADINGS = { "README.md": "## Exercises", "README.zh.md": "## 练习" } as const;

/** One numbered exercise of a text's exercises section. */
export interface WrittenExercise {
  /** The number it is written with. */
  number: number;
  /** Its text, up to the next numbered exercise or the end of the section (code blocks included). */
  text: string;
}

/**
 * The numbered exercises of a text's exercises section (`1. ...`, `2. ...` at the start of a line,
 * outside code blocks), each up to the next one, a `###` heading or the section's end; `undefined`
 * when the text has no such section.
 */
export function writtenExercises(markdown: string, heading: string): WrittenExercise[] | undefined {
  const lines = markdown.split("\n");
  const start = lines.findIndex((line) => line.trim() === heading);
  if (start === -1) return undefined;
  const items: WrittenExercise[] = [];
  let fence: string | undefined;
  let closed = false; // a ### heading ends the exercise above it (the questions come after the exercises)
  for (const line of lines.slice(start + 1)) {
    const opener = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined && /^## /.test(line)) break;
    if (fence === undefined && /^#{3,} /.test(line)) closed = true;
    if (opener && (fence === undefined || opener.startsWith(fence))) fence = fence === undefined ? opener : undefined;
    const numbered = fence === undefined ? /^(\d+)\.\s/.exec(line) : null;
    if (numbered) {
      items.push({ number: Number(numbered[1]), text: line });
      closed = false;
    } else if (items.length > 0 && !closed) items[items.length - 1].text += `\n${line}`;
  }
  return items;
}

/**
 * Where a chapter text's exercises section and the manifest disagree: each written exercise must
 * show the command of the manifest's exercise with its number, and there must be one of each.
 * A text without the section is left to the chapter-shape test.
 */
export function writtenExerciseProblems(
  chapter: Pick<Chapter, "folder">,
  packageName: string,
  file: keyof typeof EXERCISES_HEADINGS,
  markdown: string,
  exercises: Exercise[] | undefined,
): ExerciseProblem[] {
  const written = writtenExercises(markdown, EXERCISES_HEADINGS[file]);
  if (written === undefined) return [];
  const problem = (message: string): ExerciseProblem => ({ chapter: chapter.folder, message: `${file}: ${message}` });
  if (exercises === undefined) {
    return [problem(`has an exercises section but the chapter has no ${MANIFEST} to check it`)];
  }
  const problems: ExerciseProblem[] = [];
  const numbers = written.map((item) => item.number);
  const expected = exercises.map((exercise) => exercise.id);
  if (numbers.join() !== expected.join()) {
    problems.push(
      problem(`its exercises are numbered ${numbers.join(", ") || "(none)"}; ${MANIFEST} has ${expected.join(", ")}`),
    );
  }
  for (const exercise of exercises) {
    const item = written.find((entry) => entry.number === exercise.id);
    const command = exerciseCommand(packageName, exercise);
    if (item && !item.text.includes(command)) {
      problems.push(problem(`exercise ${exercise.id} does not show its command: ${command}`));
    }
  }
  return problems;
}

/** How a mutation exercise's text begins in each language (after its number and a bold title, if any). */
export const PREDICT_FIRST = { "README.md": "Predict first", "README.zh.md": "先预测" } as const;

/**
 * What is wrong with the kinds of a chapter's exercises (issue 24): the manifest has exactly one
 * build exercise; in each text, that exercise folds its answer (a `<details>` block inside it), and
 * every other one starts with "Predict first" / "先预测" (after its number and an optional bold
 * title: `2. **Off by one.** Predict first: …`).
 */
export function exerciseKindProblems(
  exercises: Exercise[] | undefined,
  texts: Partial<Record<keyof typeof EXERCISES_HEADINGS, string>>,
): string[] {
  if (exercises === undefined) return [`the chapter has no ${MANIFEST}`];
  const problems: string[] = [];
  const builds = exercises.filter((exercise) => kindOf(exercise) === "build").map((exercise) => exercise.id);
  if (builds.length !== 1) {
    problems.push(
      `${MANIFEST} has ${builds.length} build exercises (${builds.join(", ") || "none"}); a chapter has exactly one`,
    );
  }
  for (const [file, markdown] of Object.entries(texts) as [keyof typeof EXERCISES_HEADINGS, string][]) {
    for (const item of writtenExercises(markdown, EXERCISES_HEADINGS[file]) ?? []) {
      const exercise = exercises.find((entry) => entry.id === item.number);
      if (!exercise) continue; // writtenExerciseProblems names it
      if (kindOf(exercise) === "build") {
        if (!/^\s*<details(?:\s[^>]*)?>/m.test(item.text)) {
          problems.push(`${file}: exercise ${item.number} (build) does not fold its answer in a <details> block`);
        }
      } else {
        const afterNumber = item.text.replace(/^\d+\.\s+/, "");
        const afterTitle = afterNumber.replace(/^\*\*[^*]+\*\*\s*/, "");
        if (![afterNumber, afterTitle].some((opening) => opening.replace(/^\*+/, "").startsWith(PREDICT_FIRST[file]))) {
          problems.push(`${file}: exercise ${item.number} does not start with "${PREDICT_FIRST[file]}"`);
        }
      }
    }
  }
  return problems;
}
