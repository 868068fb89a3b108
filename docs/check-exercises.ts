/**
 * `pnpm test:exercises [chapter ...]`: every exercise of every chapter (or of the chapters named),
 * checked. The repository is copied to a temporary directory (without node_modules, .git, .env and
 * what builds and runs leave behind) and installed there from pnpm's local store; then, for each
 * exercise of each chapter's test/exercises.ts, the change is made, the chapter's tests are run
 * filtered to the exercise's test (the command the chapter text shows), the outcome is compared
 * with the exercise's `expect`, and the file is put back.
 *
 * A build exercise (`kind: "build"`) is proved twice: with its stub in place the chapter's whole
 * suite runs, and at least one test fails, every one of them a test the exercise names (the stub
 * breaks nothing else); and the reference, the chapter's code as it is, passes the whole suite
 * (run once per chapter that has a build exercise).
 *
 * Prints one line per exercise (and per reference) and `N passed, N failed`; exits 1 when any
 * exercise does not do what it says (the copy is then kept, to look at). It does not run a mutation
 * exercise's tests unchanged first: CI runs it after `pnpm test`, which shows they pass.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, relative } from "node:path";
import {
  type ExerciseOutcome,
  exerciseOutcome,
  referenceOutcome,
  stubOutcome,
  type VitestReport,
} from "./src/exercise-outcome.ts";
import {
  type Exercise,
  exerciseCommand,
  kindOf,
  MANIFEST,
  occurrences,
  readExercises,
  testFilterArgs,
} from "./src/exercises.ts";
import { type Chapter, findChapters, REPO_ROOT } from "./src/find-chapters.ts";

/** Names left out of the copy, wherever they are, and paths from the root left out (what .gitignore names). */
const NOT_COPIED = new Set(["node_modules", ".git", ".env", "docs-site", ".turbo", ".traces", "test-artifacts"]);
const NOT_COPIED_PATHS = new Set(["bench/results"]);
/**
 * The filter that runs a chapter's whole suite: every test file is under `test/`. A filter is needed
 * all the same: pnpm reads options that come straight after the script's name as its own
 * (`pnpm test --reporter=json` is pnpm's `--reporter`, and fails), and a first word that is not
 * an option hands the rest to vitest.
 */
const WHOLE_SUITE = ["test/"];
/** How long one exercise's test run may take before it is killed. */
const RUN_LIMIT_MS = 5 * 60_000;

const wanted = process.argv.slice(2);
const chapters = findChapters().filter((chapter) => wanted.length === 0 || wanted.includes(chapter.folder));
const unknown = wanted.filter((name) => !chapters.some((chapter) => chapter.folder === name));
if (unknown.length > 0) fail(`no chapter named ${unknown.join(", ")}`);

const work: { chapter: Chapter; exercises: Exercise[] }[] = [];
for (const chapter of chapters) {
  const manifest = await readExercises(chapter);
  if (!manifest) continue;
  if (manifest.problems.length > 0) {
    fail(manifest.problems.map((p) => `${p.chapter}: ${p.message}`).join("\n"));
  }
  work.push({ chapter, exercises: manifest.exercises });
}
if (work.length === 0) {
  console.log(`exercises: no chapter has a ${MANIFEST}`);
  process.exit(0);
}

const copy = mkdtempSync(join(tmpdir(), "harness-exercises-"));
cpSync(REPO_ROOT, copy, {
  recursive: true,
  filter: (source) => !NOT_COPIED.has(basename(source)) && !NOT_COPIED_PATHS.has(relative(REPO_ROOT, source)),
});
const install = spawnSync("pnpm", ["install", "--offline", "--frozen-lockfile", "--reporter=silent"], {
  cwd: copy,
  encoding: "utf8",
});
if (install.status !== 0) {
  fail(`pnpm install in ${copy} failed:\n${install.stderr || install.stdout}`);
}

let passed = 0;
let failed = 0;
for (const { chapter, exercises } of work) {
  const results = [
    ...(exercises.some((exercise) => kindOf(exercise) === "build") ? [checkReference(chapter)] : []),
    ...exercises.map((exercise) => check(chapter, exercise)),
  ];
  passed += results.filter(Boolean).length;
  failed += results.filter((ok) => !ok).length;
}
console.log(`${passed} passed, ${failed} failed`);
if (failed > 0) {
  console.log(`the copy is kept in ${copy}`);
  process.exit(1);
}
rmSync(copy, { recursive: true, force: true });

/**
 * Make one exercise's change in the copy, run its test (a build exercise: the chapter's whole
 * suite), put the file back; print one line.
 */
function check(chapter: Chapter, exercise: Exercise): boolean {
  const packageName = chapter.packageName ?? `@harness/${chapter.folder}`;
  const file = join(copy, chapter.folder, exercise.file);
  const original = readFileSync(file, "utf8");
  const build = kindOf(exercise) === "build";
  let outcome: ExerciseOutcome;
  if (occurrences(original, exercise.find) !== 1) {
    outcome = { ok: false, summary: `find does not occur exactly once in ${exercise.file}` };
  } else {
    writeFileSync(
      file,
      original.replace(exercise.find, () => exercise.replace),
    );
    try {
      const run = runTests(chapter, `${exercise.id}`, build ? WHOLE_SUITE : testFilterArgs(exercise.test));
      outcome = build ? stubOutcome(run, exercise.test) : exerciseOutcome(run, exercise.expect);
    } finally {
      writeFileSync(file, original);
    }
  }
  const mark = outcome.ok ? "ok   " : "WRONG";
  const what = build ? "build: the stub" : `expect ${exercise.expect}`;
  console.log(
    `${mark} ${chapter.folder} #${exercise.id} (${what}): ${outcome.summary} · ${exerciseCommand(packageName, exercise)}`,
  );
  return outcome.ok;
}

/** A build exercise's reference: the chapter's code as it is passes its whole suite; print one line. */
function checkReference(chapter: Chapter): boolean {
  const outcome = referenceOutcome(runTests(chapter, "reference", WHOLE_SUITE));
  console.log(`${outcome.ok ? "ok   " : "WRONG"} ${chapter.folder} reference (the chapter's code): ${outcome.summary}`);
  return outcome.ok;
}

/** Run the chapter's tests in the copy (filtered by `filter`, or all of them) with a JSON report. */
function runTests(chapter: Chapter, name: string, filter: string[]) {
  const packageName = chapter.packageName ?? `@harness/${chapter.folder}`;
  const report = join(copy, `.exercise-${chapter.folder}-${name}.json`);
  rmSync(report, { force: true });
  const run = spawnSync(
    "pnpm",
    ["--filter", packageName, "test", ...filter, "--reporter=json", `--outputFile=${report}`],
    { cwd: copy, encoding: "utf8", timeout: RUN_LIMIT_MS, killSignal: "SIGKILL" },
  );
  return { exitCode: run.status, report: readReport(report) };
}

function readReport(path: string): VitestReport | undefined {
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, "utf8")) as VitestReport;
  } catch {
    return undefined;
  }
}

function fail(message: string): never {
  console.error(`exercises: ${message}`);
  process.exit(1);
}
