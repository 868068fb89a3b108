/**
 * What one exercise's test run showed, judged against what the exercise says it shows. The run is
 * the chapter's vitest with a JSON report; "fail" means at least one test failed, which is not the
 * same as vitest failing to start (a change that does not parse fails every test file before any
 * test runs: that proves nothing about the test the exercise names).
 */
import { matches } from "./exercises.ts";

/** The part of vitest's JSON report this reads. */
export interface VitestReport {
  numFailedTests: number;
  numPassedTests: number;
  testResults: {
    /** The test file's path. */
    name: string;
    status: string;
    message?: string;
    /** Each test of the file: its full name (its describes' names and its own, joined by spaces). */
    assertionResults?: { fullName: string; status: string }[];
  }[];
}

/** How a test run ended: its exit status and its report (undefined when none was written). */
export interface TestRun {
  /** The exit status, or null when the run was killed (a timeout). */
  exitCode: number | null;
  report: VitestReport | undefined;
}

/** Whether the run showed what the exercise says, and a few words on what it showed. */
export interface ExerciseOutcome {
  ok: boolean;
  summary: string;
}

/**
 * Judge a run. `fail` holds when vitest exits non-zero with at least one failed test and no test
 * file that failed before its tests ran; `pass` holds when it exits 0 having run at least one test.
 */
export function exerciseOutcome(run: TestRun, expected: "fail" | "pass"): ExerciseOutcome {
  const { exitCode, report } = run;
  if (exitCode === null) return { ok: false, summary: "the test run was killed (it ran past its time limit)" };
  if (!report) return { ok: false, summary: `vitest exited ${exitCode} without a report: it did not start` };
  const broken = report.testResults.find((file) => file.status === "failed" && (file.message ?? "").trim() !== "");
  const counts = `${report.numFailedTests} failed, ${report.numPassedTests} passed`;
  if (broken) {
    const why = firstLine(broken.message ?? "");
    return { ok: false, summary: `a test file failed before its tests ran (${why}); ${counts}` };
  }
  if (expected === "fail") {
    if (exitCode !== 0 && report.numFailedTests > 0) return { ok: true, summary: `red as expected: ${counts}` };
    return { ok: false, summary: `expected the test to fail, but vitest exited ${exitCode}: ${counts}` };
  }
  if (exitCode === 0 && report.numPassedTests > 0) return { ok: true, summary: `green as expected: ${counts}` };
  if (exitCode === 0) return { ok: false, summary: "expected the test to pass, but no test ran" };
  return { ok: false, summary: `expected the test to pass, but vitest exited ${exitCode}: ${counts}` };
}

/** The first two lines of a message that say something, on one line, without colour codes. */
function firstLine(message: string): string {
  const lines = message
    .replace(/\x1b\[[0-9;]*m/g, "")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
  return lines.slice(0, 2).join(" ") || "no message";
}

/**
 * Judge a build exercise's stub: the chapter's whole suite run with the stub in place. It holds
 * when vitest exits non-zero, no test file failed before its tests ran, at least one test failed,
 * and every test that failed is one the exercise names (`test`: a pattern matched against a test's
 * full name, as vitest's `-t` matches it, or a test file): the stub breaks nothing else.
 */
export function stubOutcome(run: TestRun, test: string): ExerciseOutcome {
  const { exitCode, report } = run;
  if (exitCode === null) return { ok: false, summary: "the test run was killed (it ran past its time limit)" };
  if (!report) return { ok: false, summary: `vitest exited ${exitCode} without a report: it did not start` };
  const broken = report.testResults.find((file) => file.status === "failed" && (file.message ?? "").trim() !== "");
  const counts = `${report.numFailedTests} failed, ${report.numPassedTests} passed`;
  if (broken) {
    return {
      ok: false,
      summary: `a test file failed before its tests ran (${firstLine(broken.message ?? "")}); ${counts}`,
    };
  }
  const failed = report.testResults.flatMap((file) =>
    (file.assertionResults ?? [])
      .filter((t) => t.status === "failed")
      .map((t) => ({ file: file.name, name: t.fullName })),
  );
  if (exitCode === 0 || failed.length === 0) {
    return { ok: false, summary: `the stub leaves every test green (vitest exited ${exitCode}: ${counts})` };
  }
  const named = (t: { file: string; name: string }) =>
    test.endsWith(".test.ts") ? t.file.endsWith(`/${test}`) || t.file === test : matches(test, t.name);
  const others = failed.filter((t) => !named(t));
  if (others.length > 0) {
    const shown = others.slice(0, 3).map((t) => JSON.stringify(t.name));
    return {
      ok: false,
      summary: `the stub breaks ${others.length} test(s) the exercise does not name: ${shown.join(", ")}${others.length > 3 ? ", ..." : ""}`,
    };
  }
  return { ok: true, summary: `the stub turns ${failed.length} named test(s) red and nothing else: ${counts}` };
}

/**
 * Judge a build exercise's reference (the chapter's code as it is): the whole suite passes, having
 * run at least one test.
 */
export function referenceOutcome(run: TestRun): ExerciseOutcome {
  const outcome = exerciseOutcome(run, "pass");
  return outcome.ok
    ? { ok: true, summary: outcome.summary.replace("green as expected", "the whole suite green") }
    : outcome;
}
